//! The smallest terminal the screen works in. Below it the screen only says
//! so, and no key but quitting acts: what a key would act on is not shown.

/// Below this the screen says it is too small.
pub const MIN_WIDTH: u16 = 60;
pub const MIN_HEIGHT: u16 = 16;

pub fn too_small(width: u16, height: u16) -> bool {
    width < MIN_WIDTH || height < MIN_HEIGHT
}
