//! Greedy grouping verified as the source is read: when units come in the
//! source's order (the default `--keep first`), each block of units is
//! sketched as the second pass reaches it and decided at once; the sketches
//! of the units it keeps are held for the blocks after ([`KeptSketches`]:
//! in memory up to half the run's budget, then in a file), and the others
//! are let go. Sketches are made a batch of the source's at a time, on all
//! cores, from the texts as they were read, while the blocks before the batch
//! are decided. So verification holds the sketches of kept documents only,
//! and reads the source once, overlapped with the grouping.

use std::collections::HashMap;

use neardup_index::Bits;

use crate::error::{Error, Result};
use crate::greedy::{Greedy, Grouped, Search};
use crate::kept_sketches::KeptSketches;
use crate::progress::Stage;
use crate::sketches::{SketchPass, sketch_batch};

/// Greedy grouping of the units whose fingerprints are `bits`, their
/// documents read and sketched as `pass` says, in one pass.
pub(crate) fn greedy_as_read<B: Bits>(
    bits: &[B],
    rule: &Search,
    pass: &SketchPass,
) -> Result<Grouped> {
    let mut state = State {
        greedy: Greedy::new(bits, rule, pass.progress)?,
        kept: KeptSketches::new(pass.memory / 2, pass.spill),
        pending: HashMap::new(),
    };
    let progress = pass.progress;
    progress.stage(Stage::Verifying, pass.source.total_bytes());
    let now = pass.source.revisit(progress, pass.wanted, &mut |batch| {
        if progress.cancelled() {
            return Err(Error::Cancelled);
        }
        // The blocks before this batch are decided while it is sketched:
        // deciding them needs nothing of it.
        let first = batch.first().map(|doc| (pass.unit_of)(doc.number));
        let (sketched, decided) = rayon::join(
            || sketch_batch(batch, pass.verification),
            || -> Result<()> {
                while let Some(first) = first
                    && first as usize >= state.greedy.next_block().end
                {
                    state.decide(pass)?;
                }
                Ok(())
            },
        );
        decided?;
        for (d, sketch) in sketched {
            let u = (pass.unit_of)(d);
            if (u as usize) < state.greedy.next() {
                return Err(Error::OutOfOrder {
                    document: d as usize,
                });
            }
            // Units come in order: the blocks before this one are ready.
            while u as usize >= state.greedy.next_block().end {
                state.decide(pass)?;
            }
            state.pending.insert(u, sketch);
        }
        Ok(())
    })?;
    while state.greedy.next() < bits.len() {
        state.decide(pass)?;
    }
    progress.finish();
    if now != pass.documents {
        return Err(Error::Changed {
            first: pass.documents,
            now,
        });
    }
    Ok(state.greedy.finish())
}

struct State<'a, 'r, B> {
    greedy: Greedy<'a, 'r, B>,
    /// The sketches of kept units, for the blocks after theirs.
    kept: KeptSketches<'a>,
    /// The sketches of the next block's units, as read.
    pending: HashMap<u32, Vec<u64>>,
}

impl<B: Bits> State<'_, '_, B> {
    /// Decides the next block, with the sketches read for it.
    fn decide(&mut self, pass: &SketchPass) -> Result<()> {
        let verification = pass.verification;
        let fresh = std::mem::take(&mut self.pending);
        let kept = &self.kept;
        let short = self.greedy.rule().short;
        let sketch = |u: u32| {
            fresh
                .get(&u)
                .map(Vec::as_slice)
                .or_else(|| short.and_then(|s| s.sketches.get(u)))
                .or_else(|| kept.get(u))
        };
        let verify = |a: u32, u: u32| match (sketch(a), sketch(u)) {
            (Some(x), Some(y)) => verification.passed(x, y).map(|s| s as f32),
            _ => None,
        };
        self.greedy.block(&verify)?;
        let spilled = self.kept.spilled() > 0;
        for (u, sketch) in fresh {
            if self.greedy.is_kept(u) {
                self.kept.insert(u, sketch)?;
            }
        }
        if !spilled && self.kept.spilled() > 0 {
            pass.progress
                .spilling("the kept documents' verification sketches", pass.spill);
        }
        self.kept.sync()
    }
}
