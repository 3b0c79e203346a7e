//! Evidence, the gate, done and the hooks.
