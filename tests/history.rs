//! History, stagnation, retries and the retry guard.
