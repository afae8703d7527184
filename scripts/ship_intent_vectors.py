"""Write the intent classifier's example vectors for the default model into the package.

    python scripts/ship_intent_vectors.py

Run it after editing rag/understand/data/intents.jsonl (a test fails until you do): a first start then loads
the vectors instead of embedding 172 examples. Old files of earlier examples are removed.
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from rag.models.embeddings import E5Embedder  # noqa: E402
from rag.understand.intent import IntentClassifier, load_examples  # noqa: E402


def main() -> None:
    embedder = E5Embedder()
    examples = load_examples()
    data = ROOT / "rag" / "understand" / "data"  # where load_examples() and the classifier look
    for old in data.glob("intent-examples-*.npy"):
        old.unlink()
    classifier = IntentClassifier(embedder, examples)  # nothing shipped any more: embeds them in one batch
    target = data / classifier.vectors_file()
    np.save(target, embedder.embed_queries([text for text, _ in examples]))
    print(f"wrote {target.relative_to(ROOT)} ({len(examples)} examples)")


if __name__ == "__main__":
    main()
