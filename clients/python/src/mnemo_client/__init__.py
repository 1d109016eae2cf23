"""mnemo_client: a client of the mnemo memory server's REST API (standard library only).

    from mnemo_client import Mnemo, MnemoError
    m = Mnemo(base_url="http://127.0.0.1:7077", api_key=None, namespace="team-a")
    m.remember(text="GDPR breach notification is due within 72 hours", importance=0.9)
    print(m.digest("handle a data breach", token_budget=2000)["markdown"])
"""

from ._version import __version__
from .client import ImportSource, Mnemo, Pages, Time
from .errors import CLIENT_CODES, MnemoError
from .types import *  # noqa: F401,F403
from .types import __all__ as _types_all

__all__ = ["Mnemo", "MnemoError", "Pages", "ImportSource", "Time", "CLIENT_CODES", "__version__"] + list(_types_all)
