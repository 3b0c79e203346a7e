//! Agent integration.
