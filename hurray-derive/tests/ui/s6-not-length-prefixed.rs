use hurray_derive::HurraySection;

/// One mistake, the missing length prefix, reported once for every appended field.
#[derive(HurraySection, Clone, Copy)]
struct Fixed {
    a: u32,
    #[hurray(since = "1.1", default = 0)]
    added: u16,
    #[hurray(since = "1.2", default = 0)]
    later: u16,
}

fn main() {}
