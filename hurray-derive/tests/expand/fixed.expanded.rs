// Expansion of:
// #[hurray(crate = "hurray_runtime")] struct Pair { a: u16, #[hurray(offset = 2)] b: u16 }
/// A borrowed view of a `Pair` section: fixed-offset accessors, no allocation.
#[derive(Clone, Copy, Debug)]
struct PairView<'a> {
    bytes: &'a [u8],
    acting: hurray_runtime::__private::Version,
    skipped: usize,
}
const _: () = {
    use hurray_runtime::__private as __h;
    #[allow(dead_code)]
    impl Pair {
        /// Byte offset of `a`.
        pub const OFFSET_A: usize = 0;
        /// Byte offset of `b`.
        pub const OFFSET_B: usize = Self::OFFSET_A + <u16 as __h::WireField>::SIZE;
        /// Encoded size at the newest version.
        pub const SIZE: usize = Self::OFFSET_B + <u16 as __h::WireField>::SIZE;
    }
    const _: () = assert!(
        Pair::OFFSET_B == 2,
        "field `b`: its #[hurray(offset = 2)] disagrees with the layout: the fields before it end at another offset (they overlap it or leave a gap)"
    );
    impl __h::Section for Pair {
        const BASE: __h::Version = __h::Version::new(1, 0);
        const LENGTH_PREFIXED: bool = false;
        const VERSIONS: &'static [(__h::Version, usize)] = &[
            (__h::Version::new(1, 0), Pair::OFFSET_B + <u16 as __h::WireField>::SIZE),
        ];
        const FIELDS: &'static [&'static str] = &["a", "b"];
        fn read(
            bytes: &[u8],
            data: __h::Version,
            reader: __h::Version,
        ) -> Result<__h::Decoded<Self>, __h::Error> {
            if data < __h::Version::new(1, 0) {
                return Err(
                    __h::Error::new(
                        __h::Rule::Sec2,
                        0,
                        format!(
                            "{} data at version {} predates the section's base {}",
                            stringify!(Pair), data, __h::Version::new(1, 0)
                        ),
                    ),
                );
            }
            let at_data = <Self as __h::Section>::size_at(data);
            let at_reader = <Self as __h::Section>::size_at(reader);
            let known = __h::known_length(
                bytes.len(),
                data,
                reader,
                at_data,
                at_reader,
                false,
            )?;
            let acting = if data < reader { data } else { reader };
            let mut defaulted: Vec<&'static str> = Vec::new();
            let a: u16 = <u16 as __h::WireField>::read_le(
                &bytes[Pair::OFFSET_A..Pair::OFFSET_A + <u16 as __h::WireField>::SIZE],
            );
            let b: u16 = <u16 as __h::WireField>::read_le(
                &bytes[Pair::OFFSET_B..Pair::OFFSET_B + <u16 as __h::WireField>::SIZE],
            );
            Ok(__h::Decoded {
                value: Pair { a, b },
                defaulted,
                skipped: bytes.len() - known,
            })
        }
        fn required_version(&self) -> __h::Version {
            let mut need = __h::Version::new(1, 0);
            need
        }
        fn write_at(&self, v: __h::Version, out: &mut Vec<u8>) {
            if __h::Version::new(1, 0) <= v {
                <u16 as __h::WireField>::write_le(&self.a, out);
            }
            if __h::Version::new(1, 0) <= v {
                <u16 as __h::WireField>::write_le(&self.b, out);
            }
        }
    }
    impl __h::WireField for Pair {
        const SIZE: usize = Self::OFFSET_B + <u16 as __h::WireField>::SIZE;
        fn read_le(bytes: &[u8]) -> Self {
            let a: u16 = <u16 as __h::WireField>::read_le(
                &bytes[Pair::OFFSET_A..Pair::OFFSET_A + <u16 as __h::WireField>::SIZE],
            );
            let b: u16 = <u16 as __h::WireField>::read_le(
                &bytes[Pair::OFFSET_B..Pair::OFFSET_B + <u16 as __h::WireField>::SIZE],
            );
            Pair { a, b }
        }
        fn write_le(&self, out: &mut Vec<u8>) {
            <u16 as __h::WireField>::write_le(&self.a, out);
            <u16 as __h::WireField>::write_le(&self.b, out);
        }
    }
    impl<'a> PairView<'a> {
        /// A view over the section's bytes, written at `data` and read at `reader`.
        pub fn new(
            bytes: &'a [u8],
            data: __h::Version,
            reader: __h::Version,
        ) -> Result<Self, __h::Error> {
            let d = <Pair as __h::Section>::read(bytes, data, reader)?;
            let known = bytes.len() - d.skipped;
            Ok(PairView {
                bytes: &bytes[..known],
                acting: if data < reader { data } else { reader },
                skipped: d.skipped,
            })
        }
        /// Bytes from a newer version this reader skipped (CD2).
        pub fn skipped(&self) -> usize {
            self.skipped
        }
        /// `a`, at a fixed offset.
        pub fn a(&self) -> u16 {
            let bytes = self.bytes;
            <u16 as __h::WireField>::read_le(
                &bytes[Pair::OFFSET_A..Pair::OFFSET_A + <u16 as __h::WireField>::SIZE],
            )
        }
        /// `b`, at a fixed offset.
        pub fn b(&self) -> u16 {
            let bytes = self.bytes;
            <u16 as __h::WireField>::read_le(
                &bytes[Pair::OFFSET_B..Pair::OFFSET_B + <u16 as __h::WireField>::SIZE],
            )
        }
    }
};
