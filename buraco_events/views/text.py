"""Words shared by what people are shown (pure): `util.text`'s, named here for the views.

Text from a log is made safe to show by `visible`; a hand's number as people count it is
`hand_words`. Both live in `util.text`, below the services that print them too.
"""

from __future__ import annotations

from buraco_events.util.text import hand_words as hand_words
from buraco_events.util.text import visible as visible
