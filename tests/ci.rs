//! `goal ci init`: the workflows it writes.
