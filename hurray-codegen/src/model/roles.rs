//! The roles of the model: the tag spaces the tools give meaning to beyond the tables (a
//! scheme's storage types and parameters, a layout's rank rules, …). `spec.toml`'s `[roles]`
//! names the space that plays each role, lowering resolves the names once, and code reaches
//! a space it relies on as `spec.roles.scheme`, never by its name.

use super::ids::SpaceId;
use super::words::words;

/// Declares [`Role`] and [`Roles`] from one list: `field: Variant`; a role's word in
/// spec.toml is its field's name.
macro_rules! roles {
    ($( $(#[doc = $doc:literal])* $field:ident: $variant:ident, )*) => {
        words! {
            /// A role a tag space plays (a key of `[roles]` in spec.toml).
            pub enum Role: "role" {
                $( $(#[doc = $doc])* $variant = stringify!($field), )*
            }
        }

        /// The space that plays each role.
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub struct Roles {
            $( $(#[doc = $doc])* pub $field: SpaceId, )*
        }

        impl Roles {
            /// Roles from the space each one resolves to.
            pub fn from_fn(mut space: impl FnMut(Role) -> SpaceId) -> Roles {
                Roles { $( $field: space(Role::$variant), )* }
            }

            /// The space that plays `role`.
            pub fn space(&self, role: Role) -> SpaceId {
                match role {
                    $( Role::$variant => self.$field, )*
                }
            }

            /// The role `space` plays, if any.
            pub fn of(&self, space: SpaceId) -> Option<Role> {
                [$( Role::$variant ),*].into_iter().find(|r| self.space(*r) == space)
            }
        }
    };
}

roles! {
    /// Element types: bit width, kind, format, packing; the storage types of schemes.
    element_type: ElementType,
    /// Layouts: class, ranks and their rules, buffer count, byte_offset rule.
    layout: Layout,
    /// Devices: the memory classes valid on each.
    device: Device,
    /// Memory classes: what devices name.
    memory_class: MemoryClass,
    /// Quantization schemes: flag set, storage types, parameter buffers; each has an axis.
    scheme: Scheme,
    /// Composite combine operations: the composition rules each is legal with.
    combine_op: CombineOp,
    /// Composition rules: what combine operations name.
    composition_rule: CompositionRule,
    /// Block table index types: the byte width of one index.
    block_table_index_type: BlockTableIndexType,
}
