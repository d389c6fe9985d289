//! The ids of the model's items: an index into the spec's list of axes, spaces, flag sets,
//! structures, rules or resolutions, resolved once by lowering.

macro_rules! id_type {
    ($($name:ident),*) => {$(
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        #[doc = concat!("The index of one item of the spec (`", stringify!($name), "`).")]
        pub struct $name(pub u32);
        impl $name {
            pub fn index(self) -> usize { self.0 as usize }
        }
    )*};
}
id_type!(AxisId, SpaceId, FlagSetId, StructId, RuleId, ResolutionId);
