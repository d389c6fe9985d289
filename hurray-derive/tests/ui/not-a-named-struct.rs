use hurray_derive::HurraySection;

#[derive(HurraySection, Clone, Copy)]
struct Pair(u32, u32);

#[derive(HurraySection, Clone, Copy)]
struct Generic<T: Copy> {
    a: T,
}

fn main() {}
