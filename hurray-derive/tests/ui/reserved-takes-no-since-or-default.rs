use hurray_derive::HurraySection;

#[derive(HurraySection, Clone, Copy)]
#[hurray(length_prefixed)]
struct Payload {
    a: u32,
    #[hurray(reserved, since = "1.1", default = [0; 4])]
    _pad: [u8; 4],
}

fn main() {}
