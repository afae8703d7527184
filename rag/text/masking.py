"""Masking of secrets and personal data before anything is written to a trace or a log."""
from __future__ import annotations

import re

# Order matters: tokens before the generic long-secret rule, emails before phone numbers.
#
# Every rule runs over whole user messages (40,000 characters and more), so each is linear-time:
# a rule whose first part is an unbounded run may start only where such a run starts (a
# lookbehind), and runs are possessive (`++`), so a failed match never rescans the same run from
# each of its characters. tests/test_linear_regex.py times every pattern on 100k-character inputs.
_RULES: list[tuple[re.Pattern, str]] = [
    (re.compile(r"(?<![\w-])xox[abposr]-[A-Za-z0-9-]{10,}+"), "[slack-token]"),
    (re.compile(r"(?<![\w-])xapp-[A-Za-z0-9-]{10,}+"), "[slack-token]"),
    (re.compile(r"(?<![\w-])sk-[A-Za-z0-9_-]{16,}+"), "[api-key]"),
    (re.compile(r"\b(?:AKIA|ASIA)[A-Z0-9]{16}\b"), "[aws-key]"),
    (re.compile(r"(?<![\w-])gh[pousr]_[A-Za-z0-9]{30,}+"), "[github-token]"),
    (re.compile(r"(?<![\w-])eyJ[\w-]{8,}+\.[\w-]{8,}+\.[\w-]{8,}+"), "[jwt]"),
    (re.compile(r"(?i)\b(bearer|token|password|passwd|pwd|secret|api[_-]?key)(\s*+[:=]\s*+|\s++)\S++"),
     r"\1\2[secret]"),
    (re.compile(r"(?i)(비밀번호|패스워드|토큰)(\s*+[:=은는]?+\s*+)\S++"), r"\1\2[secret]"),
    (re.compile(r"(?<![\w.+-])[\w.+-]++@[\w-]++(?:\.[\w-]++)++"), "[email]"),
    (re.compile(r"\b\d{6}-?[1-4]\d{6}\b"), "[rrn]"),  # Korean resident registration number
    (re.compile(r"(?<!\d)(?:\+?82[- ]?)?0?1[016789][- .]?\d{3,4}[- .]?\d{4}(?!\d)"), "[phone]"),
    (re.compile(r"(?<!\d)\+?\d{1,3}[- .]\(?\d{2,4}\)?[- .]\d{3,4}[- .]\d{4}(?!\d)"), "[phone]"),
    (re.compile(r"\b\d{4}[- ]\d{4}[- ]\d{4}[- ]\d{4}\b"), "[card]"),
]


def mask(text: str | None) -> str | None:
    """The text with tokens, passwords, emails, phone, card and resident numbers replaced by labels."""
    if not text:
        return text
    for pattern, label in _RULES:
        text = pattern.sub(label, text)
    return text
