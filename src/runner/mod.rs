//! `goal run`: the loop that drives an agent CLI until the goal is proven done. The rules are a
//! pure state machine (`machine`) over agent presets as data (`presets`), their classifier
//! (`classify`) and the turn prompt (`prompt`); the process (`agent`) and the terminal
//! (`display`) stay at the edges.

pub mod agent;
pub mod claim;
pub mod classify;
pub mod clock;
pub mod display;
pub mod machine;
pub mod overstep;
pub mod own_files;
pub mod presets;
pub mod prompt;
pub mod race;
pub mod reset;
