"""The files of a live table in the server's folder (a shell module: it reads and writes them).

A table `ID` is three files in `--dir`:

- `ID.jsonl`: the game's log, sealed, appended line by line by its one writer (`log.writer`)
  before any client sees the event: the truth, the state in memory is a fold of it;
- `ID.jsonl.key`: the secret key of the deals' salts and of the table's chance (readable by its
  owner only, the key file of `buraco play`: `session.key_path`), never served: each hand's salt is
  revealed by the log's own `hand_ended`, and the deal seed never is;
- `ID.meta.json`: what the log does not say: the seats' bots, the SHA-256 of each human seat's
  token (never a token itself), when the table was created, and for a tournament's table the
  pairing's seed its deals come from.

They are written key first, then meta, then the log's first line: a folder holding a meta
without its log, or a log without its key, is a table whose creation was cut short, listed as
broken rather than guessed at.
"""

from __future__ import annotations

import fcntl
import hashlib
import hmac
import os
import re
from pathlib import Path

import msgspec

from buraco_events.log.atomic import place
from buraco_events.play.keys import key_path, read_key, write_key

#: a table id: what `new_table_id` makes, and the only thing a URL may name
TABLE_ID = re.compile(r"^[0-9a-f]{12}$")
#: the meta file's name after the table id
META_SUFFIX = ".meta.json"
#: the file a server holds locked while it serves a folder
LOCK_NAME = ".buraco-serve.lock"


class StoreError(ValueError):
    """A table's files that cannot be used; its str is one line naming the file."""


class TableMeta(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """The meta file of a table: who is a bot, the token hashes of the human seats, when created."""

    table_id: str
    #: bot name by seat (JSON keys are strings: "1")
    bots: dict[str, str]
    #: hex SHA-256 of each human seat's token, by seat
    tokens: dict[str, str]
    #: RFC 3339 UTC
    created: str
    version: int = 1
    #: a tournament table's pairing seed: its hands are dealt from it as `tournament play` deals
    #: them (`tournament.games.TableSeeds`); None: from the table's secret key
    seed: str | None = None

    def bot_seats(self) -> dict[int, str]:
        """Return the bots by seat number."""
        return {int(seat): name for seat, name in self.bots.items()}


def lock_folder(folder: Path) -> int:
    """Take the folder for one server (an exclusive `flock` held while the descriptor is open);
    return the descriptor. Raises StoreError when another server has it."""
    path = folder / LOCK_NAME
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_CLOEXEC, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        raise StoreError(f"{folder}: another buraco serve has this folder (one server per folder)") from None
    return fd


def new_table_id() -> str:
    """Return a fresh random table id (48 bits: ids are public, tokens are the secret)."""
    return os.urandom(6).hex()


def log_path(folder: Path, table_id: str) -> Path:
    """Return where a table's log is."""
    return folder / f"{table_id}.jsonl"


def meta_path(folder: Path, table_id: str) -> Path:
    """Return where a table's meta file is."""
    return folder / f"{table_id}{META_SUFFIX}"


def token_hash(token: str) -> str:
    """Return the hex SHA-256 a meta file keeps of a seat token."""
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def seat_of_token(token: str, meta: TableMeta) -> int | None:
    """Return the seat whose token this is, or None; every seat's hash is compared, each in
    constant time, so the answer's timing says nothing of which seat or how close."""
    given = token_hash(token)
    found = None
    for seat, stored in meta.tokens.items():
        if hmac.compare_digest(given, stored):
            found = int(seat)
    return found


def deal_seed(key: bytes) -> int:
    """Return the seed of the table's chance (deals, bots' draws), derived from its secret key.

    Position-keyed (`seeds.PositionSeeds`): a table resumed after a restart deals and decides as
    the uninterrupted one would. Secret as the key is: a seed anyone knew would tell the deck.
    """
    return int.from_bytes(hmac.new(key, b"chance", hashlib.sha256).digest()[:16], "big")


def write_meta(folder: Path, meta: TableMeta) -> None:
    """Write a new table's meta file whole (never replacing one), readable by the owner only."""
    path = meta_path(folder, meta.table_id)
    try:
        place(path, msgspec.json.encode(meta) + b"\n")
    except FileExistsError:
        raise StoreError(f"{path}: exists already; a table's files are never replaced") from None
    os.chmod(path, 0o600)


def read_meta(path: Path) -> TableMeta:
    """Return a meta file's contents; raises StoreError naming the file and what is wrong."""
    try:
        meta = msgspec.json.decode(path.read_bytes(), type=TableMeta)
    except OSError as exc:
        raise StoreError(f"{path}: cannot read: {exc.strerror or exc}") from None
    except msgspec.DecodeError as exc:
        raise StoreError(f"{path}: not a table's meta file: {exc}") from None
    if meta.table_id + META_SUFFIX != path.name or not TABLE_ID.match(meta.table_id):
        raise StoreError(f"{path}: its table_id {meta.table_id!r} is not the file's")
    return meta


def new_key(folder: Path, table_id: str) -> bytes:
    """Write a new table's secret key beside its log (synced before any deal uses it)."""
    key = os.urandom(32)
    path = key_path(log_path(folder, table_id))
    if path.exists():
        raise StoreError(f"{path}: exists already; a table's files are never replaced")
    write_key(path, key)
    return key


def table_key(folder: Path, table_id: str) -> bytes:
    """Return a table's secret key; raises StoreError when its file is missing or does not read."""
    path = key_path(log_path(folder, table_id))
    key = read_key(path)
    if key is None:
        raise StoreError(f"{path}: missing or unreadable: the table's deals cannot go on")
    return key


def table_ids(folder: Path) -> list[str]:
    """Return the ids of the tables in a folder (by their meta files), in name order."""
    ids = []
    for path in sorted(folder.glob(f"*{META_SUFFIX}")):
        table_id = path.name[:-len(META_SUFFIX)]
        if TABLE_ID.match(table_id):
            ids.append(table_id)
    return ids


__all__ = [
    "LOCK_NAME", "META_SUFFIX", "TABLE_ID", "StoreError", "TableMeta", "deal_seed", "lock_folder", "log_path",
    "meta_path", "new_key",
    "new_table_id", "read_meta", "seat_of_token", "table_ids", "table_key", "token_hash", "write_meta",
]
