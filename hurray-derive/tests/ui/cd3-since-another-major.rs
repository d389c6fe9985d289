use hurray_derive::HurraySection;

/// A field `since` 2.0 on a section based at 1.0: readers of major 1 reject major-2 data
/// (CD3), so a new major is never an appended field.
#[derive(HurraySection, Clone, Copy)]
#[hurray(length_prefixed, base = "1.0")]
struct Payload {
    a: u32,
    #[hurray(since = "2.0", default = 0)]
    b: u32,
}

fn main() {}
