//! The axes the amendment rules single out: records name axes, so the rules that compare them
//! are given these names, taken from the current spec's model.

use crate::model::Spec;

/// The axes the amendment rules single out, by name (records name axes): the axis scheme axes
/// live under (RES-6), and the axis of the tensor region's placement rules.
#[derive(Clone, Copy, Debug)]
pub struct AxisNames<'s> {
    pub scheme_parent: &'s str,
    pub placement: &'s str,
}

impl<'s> AxisNames<'s> {
    pub fn of(spec: &'s Spec) -> AxisNames<'s> {
        AxisNames {
            scheme_parent: &spec.axis(spec.scheme_parent_axis()).name,
            placement: &spec.axis(spec.placement.axis).name,
        }
    }
}
