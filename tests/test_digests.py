"""`review_quorum.digests`: the SHA-256 of short texts, without loading OpenSSL, is the
digest `hashlib` gives, on every interpreter, including one built without CPython's own."""

from __future__ import annotations

import hashlib
import importlib
import subprocess
import sys

import pytest

from review_quorum import digests
from review_quorum.identity import code_hash

SAMPLES = [b"", b"a", b"src/app.py", "caf\u00e9 \U0001f600".encode(), bytes(range(256)) * 9]


@pytest.mark.parametrize("data", SAMPLES)
def test_each_digest_is_hashlibs(data: bytes) -> None:
    assert digests.sha256(data).hexdigest() == hashlib.sha256(data).hexdigest()


def test_a_lines_hash_is_the_sha256_of_its_parts_as_before() -> None:
    # what every stored baseline and posted marker holds: the first 16 hexadecimal digits
    # of the SHA-256 of "line", NUL and the line without its white space
    assert code_hash("x = 1") == hashlib.sha256(b"line\0x=1").hexdigest()[:16]


def test_an_interpreter_without_its_own_sha256_uses_hashlibs(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for name in ("_sha2", "_sha256"):
        monkeypatch.setitem(sys.modules, name, None)  # importing it raises ImportError
    try:
        fallen_back = importlib.reload(digests)
        assert fallen_back.sha256 is hashlib.sha256
        assert fallen_back.sha256(b"abc").hexdigest() == hashlib.sha256(b"abc").hexdigest()
    finally:
        monkeypatch.undo()
        importlib.reload(digests)
    assert digests.sha256 is not hashlib.sha256


def test_digesting_a_short_text_does_not_load_openssl() -> None:
    script = (
        "import sys\n"
        "from review_quorum.identity import code_hash\n"
        "code_hash('x = 1')\n"
        "print('_hashlib' in sys.modules, 'hashlib' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.stdout.split() == ["False", "False"], done.stderr
