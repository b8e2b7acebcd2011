"""The Spark build's last step: its marts as Parquet in ``<warehouse>.spark/``, swapped in whole."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from csrwh.errors import CsrwhError


def publish(
    source: Path, work: Path, out: Path, marts: list[str], build_id: str, cluster=None
) -> None:
    """Each mart's Parquet folder (``source/<mart>``: Spark's warehouse dir, moved; on a
    cluster the stage, copied) into a new marts folder (in ``work``), then swap it in for
    ``out`` (the old one goes back into ``work``, which the build removes). On a cluster the
    manifest names the stage folder, and the previous build's folder there is removed."""
    import json

    new = work / "publish"
    new.mkdir()
    for mart in marts:
        folder = source / mart
        if not folder.is_dir():
            raise CsrwhError(
                f"mart {mart} has no Parquet folder in Spark's warehouse ({folder})",
                hint="the spark profile must keep spark.sql.warehouse.dir under CSRWH_SPARK_DIR",
            )
        if cluster is None:
            os.replace(folder, new / mart)
        else:
            shutil.copytree(folder, new / mart)
        for extra in (new / mart).iterdir():  # _SUCCESS and Hadoop's .crc checksums
            if not extra.name.endswith(".parquet") or extra.name.startswith("."):
                extra.unlink()
    manifest = {"build_id": build_id, "marts": marts}
    if cluster is not None:
        manifest["stage"] = cluster.uri
    (new / ".csrwh-spark.json").write_text(json.dumps(manifest) + "\n", encoding="utf-8")
    previous = _previous_stage_folder(out, cluster)
    if out.exists():
        os.replace(out, work / "replaced")
    os.replace(new, out)
    if previous is not None:
        shutil.rmtree(previous, ignore_errors=True)


def _previous_stage_folder(out: Path, cluster) -> Path | None:
    """The stage folder the published build names, when it is another build's on this stage."""
    import json

    if cluster is None or not (out / ".csrwh-spark.json").is_file():
        return None
    from urllib.parse import unquote, urlparse

    named = json.loads((out / ".csrwh-spark.json").read_text(encoding="utf-8")).get("stage")
    if not named:
        return None
    folder = Path(unquote(urlparse(named).path))
    if folder.parent != cluster.stage or folder == cluster.folder:
        return None
    return folder
