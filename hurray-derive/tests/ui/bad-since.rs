use hurray_derive::HurraySection;

#[derive(HurraySection, Clone, Copy)]
#[hurray(length_prefixed)]
struct Payload {
    a: u32,
    #[hurray(since = "one.two", default = 0)]
    b: u32,
}

fn main() {}
