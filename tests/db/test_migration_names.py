"""Revisions are named for what they do; a database stamped with a revision's old
number upgrades as if it had been stamped with the name, and a stamp this code does not
know stops the upgrade with a message that says so, before Alembic runs."""

from __future__ import annotations

import pytest

from pipeline.db import migrate
from pipeline.db.connect import Database
from pipeline.db.ready import NotMigrated, require_migrated


def stamp(db: Database, revision: str) -> None:
    with db.connect() as conn, conn.transaction():
        conn.execute("UPDATE public.alembic_version SET version_num = %s", (revision,))


def test_the_old_numbers_name_the_whole_chain_in_order() -> None:
    scripts = migrate.scripts()
    chain = [script.revision for script in scripts.walk_revisions()][::-1]
    # Revisions written after the renaming never had a number: the numbered ones are
    # the chain's beginning, in order.
    renamed = list(migrate.RENAMED_REVISIONS.values())
    assert chain[: len(renamed)] == renamed
    assert all(not name[0].isdigit() for name in chain)


@pytest.mark.parametrize(("old", "new"), sorted(migrate.RENAMED_REVISIONS.items()))
def test_a_database_stamped_with_an_old_number_upgrades_to_head(
    empty_database: Database, old: str, new: str
) -> None:
    migrate.upgrade(empty_database, new)  # the schema of that revision ...
    stamp(empty_database, old)  # ... stamped as an older jobharbor stamped it
    migrate.upgrade(empty_database)
    assert migrate.current_revision(empty_database) == migrate.head_revision()
    migrate.check(empty_database)  # the schema is the models', nothing applied twice


def test_an_old_number_counts_as_its_revision(empty_database: Database) -> None:
    migrate.upgrade(empty_database, "enrichment_change_stamps")
    stamp(empty_database, "0017")
    assert migrate.current_name("0017") == "enrichment_change_stamps"
    # Known, and behind the head: told to upgrade, not refused as an unknown stamp;
    # the upgrade starts from that revision (nothing applied twice).
    with pytest.raises(NotMigrated, match="is at revision 0017; this code needs"):
        require_migrated(empty_database)
    migrate.upgrade(empty_database)
    require_migrated(empty_database)
    stamp(empty_database, "0002")
    with pytest.raises(NotMigrated, match="is at revision 0002; this code needs"):
        require_migrated(empty_database)


def test_an_unknown_stamp_stops_the_upgrade_naming_it(empty_database: Database) -> None:
    migrate.upgrade(empty_database)
    stamp(empty_database, "0099")
    with pytest.raises(migrate.UnknownRevision) as caught:
        migrate.upgrade(empty_database)
    message = str(caught.value)
    assert "stamped with revision '0099', which this code does not know" in message
    assert "enrichment_change_stamps" in message  # the known revisions are listed
    with empty_database.connect() as conn:  # the stamp is left as it was
        assert migrate.stamps(conn) == ["0099"]
