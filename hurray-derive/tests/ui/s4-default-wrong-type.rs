use hurray_derive::HurraySection;

#[derive(HurraySection, Clone, Copy)]
#[hurray(length_prefixed)]
struct Payload {
    a: u32,
    #[hurray(since = "1.1", default = "none")]
    added: f32,
}

fn main() {}
