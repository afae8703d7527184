"""Each masking rule the README promises, one at a time: a rule deleted from rag/text/masking.py fails here."""
import pytest

from rag.text.masking import mask

GITHUB = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"  # 36 characters after the prefix, as GitHub issues
AWS = "AKIAIOSFODNN7EXAMPLE"  # AWS's documented example access key id


@pytest.mark.parametrize("secret,label", [(GITHUB, "[github-token]"), ("gho_" + GITHUB[4:], "[github-token]"),
                                          (AWS, "[aws-key]"), ("ASIA" + AWS[4:], "[aws-key]")])
def test_the_token_is_replaced_by_its_label(secret, label):
    masked = mask(f"배포 스크립트에 {secret} 넣었어요")
    assert secret not in masked and label in masked and masked.startswith("배포 스크립트에 ")


def test_look_alikes_are_left_alone():
    assert mask("the ghp_ prefix and AKIA are mentioned in docs") == "the ghp_ prefix and AKIA are mentioned in docs"
