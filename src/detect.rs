//! Trigger detection (stub).
