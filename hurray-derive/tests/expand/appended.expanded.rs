// Expansion of:
// #[hurray(length_prefixed, base = 1, crate = "hurray_runtime")] pub struct Lut { table: u32, #[hurray(reserved)] _r: [u8; 4], #[hurray(since = 2, default = 0.0)] bias: f32 }
/// A borrowed view of a `Lut` section: fixed-offset accessors, no allocation.
#[derive(Clone, Copy, Debug)]
pub struct LutView<'a> {
    bytes: &'a [u8],
    acting: hurray_runtime::__private::Version,
    skipped: usize,
}
const _: () = {
    use hurray_runtime::__private as __h;
    #[allow(dead_code)]
    impl Lut {
        /// Byte offset of `table`.
        pub const OFFSET_TABLE: usize = 0;
        /// Byte offset of `_r`.
        pub const OFFSET_R: usize = Self::OFFSET_TABLE + <u32 as __h::WireField>::SIZE;
        /// Byte offset of `bias`.
        pub const OFFSET_BIAS: usize = Self::OFFSET_R
            + <[u8; 4] as __h::WireField>::SIZE;
        /// The documented default of `bias` (S4): what readers of data older than 1.2 see (R4).
        pub const DEFAULT_BIAS: f32 = 0.0;
        /// Encoded size at the newest version.
        pub const SIZE: usize = Self::OFFSET_BIAS + <f32 as __h::WireField>::SIZE;
    }
    impl __h::Section for Lut {
        const BASE: __h::Version = __h::Version::new(1, 1);
        const LENGTH_PREFIXED: bool = true;
        const VERSIONS: &'static [(__h::Version, usize)] = &[
            (__h::Version::new(1, 1), Lut::OFFSET_R + <[u8; 4] as __h::WireField>::SIZE),
            (__h::Version::new(1, 2), Lut::OFFSET_BIAS + <f32 as __h::WireField>::SIZE),
        ];
        const FIELDS: &'static [&'static str] = &["table", "_r", "bias"];
        fn read(
            bytes: &[u8],
            data: __h::Version,
            reader: __h::Version,
        ) -> Result<__h::Decoded<Self>, __h::Error> {
            if data < __h::Version::new(1, 1) {
                return Err(
                    __h::Error::new(
                        __h::Rule::Sec2,
                        0,
                        format!(
                            "{} data at version {} predates the section's base {}",
                            stringify!(Lut), data, __h::Version::new(1, 1)
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
                true,
            )?;
            let acting = if data < reader { data } else { reader };
            let mut defaulted: Vec<&'static str> = Vec::new();
            let table: u32 = <u32 as __h::WireField>::read_le(
                &bytes[Lut::OFFSET_TABLE..Lut::OFFSET_TABLE
                    + <u32 as __h::WireField>::SIZE],
            );
            let _r: [u8; 4] = <[u8; 4] as __h::WireField>::read_le(
                &bytes[Lut::OFFSET_R..Lut::OFFSET_R + <[u8; 4] as __h::WireField>::SIZE],
            );
            if !<[u8; 4] as __h::WireField>::is_zero(&_r) {
                return Err(
                    __h::Error::new(
                        __h::Rule::Sec1,
                        Lut::OFFSET_R as u64,
                        format!(
                            "reserved field `{}` of `{}` is not zero", "_r",
                            stringify!(Lut)
                        ),
                    ),
                );
            }
            let bias: f32 = if __h::Version::new(1, 2) <= acting
                && Lut::OFFSET_BIAS + <f32 as __h::WireField>::SIZE <= known
            {
                <f32 as __h::WireField>::read_le(
                    &bytes[Lut::OFFSET_BIAS..Lut::OFFSET_BIAS
                        + <f32 as __h::WireField>::SIZE],
                )
            } else {
                defaulted.push("bias");
                Lut::DEFAULT_BIAS
            };
            Ok(__h::Decoded {
                value: Lut { table, _r, bias },
                defaulted,
                skipped: bytes.len() - known,
            })
        }
        fn required_version(&self) -> __h::Version {
            let mut need = __h::Version::new(1, 1);
            if __h::differs(
                &self.bias,
                &Lut::DEFAULT_BIAS,
                <f32 as __h::WireField>::write_le,
            ) && need < __h::Version::new(1, 2)
            {
                need = __h::Version::new(1, 2);
            }
            need
        }
        fn write_at(&self, v: __h::Version, out: &mut Vec<u8>) {
            if __h::Version::new(1, 1) <= v {
                <u32 as __h::WireField>::write_le(&self.table, out);
            }
            if __h::Version::new(1, 1) <= v {
                <[u8; 4] as __h::WireField>::write_le(
                    &(<[u8; 4] as __h::WireField>::read_le(
                        &[0u8; <[u8; 4] as __h::WireField>::SIZE],
                    )),
                    out,
                );
            }
            if __h::Version::new(1, 2) <= v {
                <f32 as __h::WireField>::write_le(&self.bias, out);
            }
        }
    }
    impl<'a> LutView<'a> {
        /// A view over the section's bytes, written at `data` and read at `reader`.
        pub fn new(
            bytes: &'a [u8],
            data: __h::Version,
            reader: __h::Version,
        ) -> Result<Self, __h::Error> {
            let d = <Lut as __h::Section>::read(bytes, data, reader)?;
            let known = bytes.len() - d.skipped;
            Ok(LutView {
                bytes: &bytes[..known],
                acting: if data < reader { data } else { reader },
                skipped: d.skipped,
            })
        }
        /// Bytes from a newer version this reader skipped (CD2).
        pub fn skipped(&self) -> usize {
            self.skipped
        }
        /// `table`, at a fixed offset.
        pub fn table(&self) -> u32 {
            let bytes = self.bytes;
            <u32 as __h::WireField>::read_le(
                &bytes[Lut::OFFSET_TABLE..Lut::OFFSET_TABLE
                    + <u32 as __h::WireField>::SIZE],
            )
        }
        /// `bias`, added in 1.2: `Defaulted` when the data or the reader predates it (R4).
        pub fn bias(&self) -> __h::Field<f32> {
            let bytes = self.bytes;
            if __h::Version::new(1, 2) <= self.acting
                && Lut::OFFSET_BIAS + <f32 as __h::WireField>::SIZE <= bytes.len()
            {
                __h::Field::Read(
                    <f32 as __h::WireField>::read_le(
                        &bytes[Lut::OFFSET_BIAS..Lut::OFFSET_BIAS
                            + <f32 as __h::WireField>::SIZE],
                    ),
                )
            } else {
                __h::Field::Defaulted(Lut::DEFAULT_BIAS)
            }
        }
    }
};
