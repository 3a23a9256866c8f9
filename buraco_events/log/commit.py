"""Deal commitments where the public API names them (docs/api.md: the salt sources a `Table`
takes). A commitment is a rule of the deal: it lives in `core.commit`, whose names these are."""

from buraco_events.core.commit import (
    Broken,
    Commitments,
    SaltSource,
    deal_commitment,
    deck_text,
    keyed_salts,
    seeded_salts,
)

__all__ = ["Broken", "Commitments", "SaltSource", "deal_commitment", "deck_text", "keyed_salts", "seeded_salts"]
