//! A text as lines without copying it: where each line starts (found a word at a time) and the
//! lines read back from those offsets.

/// A line without its terminator (`\n` or `\r\n`).
pub(super) fn content(line: &str) -> &str {
    line.trim_end_matches(['\n', '\r'])
}

/// `starts[i]`: the byte offset of line `i`; the last entry is `text.len()`. A line ends after
/// its `\n`; a final `\n` opens no further line.
///
/// Sixty-four bytes at a time, a word of eight at a time: a long Progress Log has many short
/// lines, for which a `memchr` call per line costs more than this scan (`goal status` must not
/// slow down as the log grows).
pub(super) fn line_starts(bytes: &[u8]) -> Vec<u32> {
    let mut starts: Vec<u32> = Vec::with_capacity(bytes.len() / 24 + 2);
    starts.push(0);
    let body = &bytes[..bytes.len().saturating_sub(1)];
    let mut blocks = body.chunks_exact(64);
    let mut base = 0u32;
    for block in &mut blocks {
        let mut mask = newline_mask(block);
        while mask != 0 {
            starts.push(base + mask.trailing_zeros() + 1);
            mask &= mask - 1;
        }
        base += 64;
    }
    for (i, &b) in blocks.remainder().iter().enumerate() {
        if b == b'\n' {
            starts.push(base + i as u32 + 1);
        }
    }
    starts.push(bytes.len() as u32);
    starts
}

/// The `\n`s of a 64-byte block as bits (bit i: byte i), a word of eight bytes at a time.
pub(super) fn newline_mask(block: &[u8]) -> u64 {
    // Multiplying the 0x80 bits of a word by this gathers them, in order, into its top byte.
    const GATHER: u64 = 0x0002_0408_1020_4081;
    let mut mask = 0u64;
    for (k, word) in block.chunks_exact(8).enumerate() {
        mask |= (newline_bytes(word).wrapping_mul(GATHER) >> 56) << (8 * k);
    }
    mask
}

/// 0x80 in exactly the bytes of an 8-byte `word` that are `\n`, 0 in the others.
pub(super) fn newline_bytes(word: &[u8]) -> u64 {
    const LOWS: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    const NEWLINES: u64 = 0x0a0a_0a0a_0a0a_0a0a;
    let x = u64::from_le_bytes(word.try_into().expect("an 8-byte word")) ^ NEWLINES;
    // Where `x` is zero, i.e. where the text has `\n`: adding 0x7f to a byte's low seven bits
    // sets its high bit unless they are all zero, and no byte carries into the next
    // (0x7f + 0x7f < 0x100).
    !(((x & LOWS) + LOWS) | x | LOWS)
}

/// The lines of a text, without copying it.
pub(super) struct Lines<'a> {
    pub(super) text: &'a str,
    pub(super) starts: &'a [u32],
}

impl<'a> Lines<'a> {
    pub(super) fn len(&self) -> usize {
        self.starts.len() - 1
    }

    /// Line `i`, its terminator included.
    pub(super) fn get(&self, i: usize) -> &'a str {
        &self.text[self.starts[i] as usize..self.starts[i + 1] as usize]
    }

    pub(super) fn offset(&self, i: usize) -> usize {
        self.starts[i] as usize
    }
}
