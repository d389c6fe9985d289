//! The roles of the model: the tag spaces the tools give meaning to beyond the tables (a
//! scheme's storage types and parameters, a layout's rank rules, …). `spec.toml`'s `[roles]`
//! names the space that plays each role, lowering resolves the names once, and code reaches
//! a space it relies on as `spec.roles.scheme`, never by its name.

use super::ids::SpaceId;
use super::words::words;

/// Declares [`Role`] and [`Roles`] from two lists, `field: Variant` each: the roles every
/// spec names, and those a spec names when it has the space (the interchange tables' message
/// types, which releases before them lack); a role's word in spec.toml is its field's name.
macro_rules! roles {
    (
        required { $( $(#[doc = $doc:literal])* $field:ident: $variant:ident, )* }
        optional { $( $(#[doc = $odoc:literal])* $ofield:ident: $ovariant:ident, )* }
    ) => {
        words! {
            /// A role a tag space plays (a key of `[roles]` in spec.toml).
            pub enum Role: "role" {
                $( $(#[doc = $doc])* $variant = stringify!($field), )*
                $( $(#[doc = $odoc])* $ovariant = stringify!($ofield), )*
            }
        }

        /// The space that plays each role.
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub struct Roles {
            $( $(#[doc = $doc])* pub $field: SpaceId, )*
            $( $(#[doc = $odoc])* pub $ofield: Option<SpaceId>, )*
        }

        impl Role {
            /// Whether every spec names the role's space.
            pub fn is_required(self) -> bool {
                match self {
                    $( Role::$variant => true, )*
                    $( Role::$ovariant => false, )*
                }
            }
        }

        impl Roles {
            /// Roles from the space each one resolves to; `None` when a required role has
            /// none.
            pub fn from_fn(mut space: impl FnMut(Role) -> Option<SpaceId>) -> Option<Roles> {
                Some(Roles {
                    $( $field: space(Role::$variant)?, )*
                    $( $ofield: space(Role::$ovariant), )*
                })
            }

            /// The space that plays `role`, if the spec names one.
            pub fn space(&self, role: Role) -> Option<SpaceId> {
                match role {
                    $( Role::$variant => Some(self.$field), )*
                    $( Role::$ovariant => self.$ofield, )*
                }
            }

            /// The role `space` plays, if any.
            pub fn of(&self, space: SpaceId) -> Option<Role> {
                [$( Role::$variant, )* $( Role::$ovariant, )*]
                    .into_iter()
                    .find(|r| self.space(*r) == Some(space))
            }
        }
    };
}

roles! {
    required {
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
    optional {
        /// Interchange message types: which side sends each (`sender`).
        message_type: MessageType,
    }
}
