"""What a format's sniff reads: the start of a trace, prepared once for every format."""

from __future__ import annotations

from .._common import strip_latency_prefix

#: The sniffs look at this many characters: a header or the first records, never the whole file.
SIZE = 8192


class Head:
    """The first :data:`SIZE` characters of a trace and its file name.

    ``text`` has mmtests' latency prefixes (``%16.4f %8.4f %10.4f -- ``) taken off every line, so a monitor
    run "with latency" is sniffed as its tool; ``start`` is ``text`` without its leading blank space (where a
    layout that must open the file begins); ``name`` is the file's name, ``""`` for a text.
    """

    __slots__ = ("text", "start", "name")

    def __init__(self, text: str, name: str = ""):
        self.text, _ = strip_latency_prefix(text[:SIZE])
        self.start = self.text.lstrip()
        self.name = name

    @property
    def json_document(self) -> bool:
        """Whether the head opens a JSON document (its first character is ``{``)."""
        return self.start.startswith("{")
