//! The red tree.
