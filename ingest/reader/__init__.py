"""The learned reader: a classifier over MiniLM sentence vectors and an object finder.

The rules (`graphmem.ingest.rules`) read the wording they were written for;
this reads what they miss. `classifier` names a sentence's topic (residence,
work, study, partner, pet, possession, hobby, favourite, diet, or none) and
kind (a value holds, ends, or replaces another), trained on the hand-written
sentences of ``data/sentences.tsv`` (`labelled`, refit by `train`);
`objects` finds the value from the sentence's shape; `reader` turns a sure
reading into facts where the rules produced none for that sentence and slot.
"""

from graphmem.ingest.reader.reader import Reader

__all__ = ["Reader"]
