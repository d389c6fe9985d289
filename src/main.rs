//! `hurray-spec`: the command line of the Hurray spec toolchain.

/// `print!` that ignores a closed pipe (`hurray-spec decode … | head`) instead of panicking.
macro_rules! out {
    ($($t:tt)*) => {{
        use std::io::Write as _;
        let _ = write!(std::io::stdout(), $($t)*);
    }};
}

/// `println!` that ignores a closed pipe.
macro_rules! outln {
    ($($t:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stdout(), $($t)*);
    }};
}

mod cli;

fn main() -> std::process::ExitCode {
    cli::run()
}
