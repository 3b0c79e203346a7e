//! Test names and outcomes from runner output.
