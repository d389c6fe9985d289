use hurray_derive::HurraySection;

#[derive(HurraySection, Clone, Copy)]
struct Fixed {
    a: u32,
    #[hurray(since = "1.1", default = 0)]
    added: u16,
}

fn main() {}
