"""jiffy-tune: sweep SDK load generators against jiffy-server and choose a configuration."""

from jiffy_tune._version import __version__

__all__ = ["__version__"]
