//! `hurray-runtime` is known here as `rt`: the derive finds it under that name, and its
//! expansion reaches the runtime only through `rt::__private`.

use hurray_derive::HurraySection;

/// A section declared through the renamed dependency.
#[derive(HurraySection, Clone, Copy, Debug, PartialEq)]
#[hurray(length_prefixed)]
pub struct Renamed {
    pub a: u32,
    #[hurray(since = "1.1", default = 5)]
    pub b: u16,
}

#[cfg(test)]
mod tests {
    use super::*;
    use rt::Version;
    use rt::section::Section;

    #[test]
    fn the_section_works_through_the_renamed_crate() {
        let mut out = Vec::new();
        Renamed { a: 1, b: 2 }.write_at(Version::new(1, 1), &mut out);
        assert_eq!(out, [1, 0, 0, 0, 2, 0]);
        let old = Renamed::read(&out[..4], Version::new(1, 0), Version::new(1, 1)).unwrap();
        assert_eq!(old.value, Renamed { a: 1, b: 5 });
        let v = RenamedView::new(&out, Version::new(1, 1), Version::new(1, 1)).unwrap();
        assert_eq!(v.b(), rt::Field::Read(2));
    }
}
