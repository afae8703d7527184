"""Evaluation, after the pipeline: replay conversations turn by turn and measure each stage.

Takes datasets (eval/FORMAT.md) and a document folder; gives a report (retrieval, routing,
not-found, latency). It drives the same pipeline a chat turn uses and imports every stage.
"""
