//! `hurray`: the implementor's command line: decode and encode Hurray data with the runtime
//! generated from `spec/`. (The spec editor's commands are in `hurray-spec`, which never
//! compiles the spec it checks.)

/// `print!` that ignores a closed pipe (`hurray decode … | head`) instead of panicking.
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
