"""`biorag index build|stats|verify|gc|rollback|count-mesh`: the local PubMed vector index."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from biorag.contracts.errors import InputError
from biorag.ml.vector_store import open_index
from cli.commands.common import (
    JsonOpt,
    PresetOpt,
    SetOpt,
    friendly_errors,
    print_json,
    settings_from_options,
)

app = typer.Typer(
    help="Build and inspect the local PubMed index (Milvus Lite file by default, a Milvus server via index.uri).",
    no_args_is_help=True,
)

CollectionOpt = Annotated[
    str | None,
    typer.Option("--collection", "-c", help="Alias the retriever reads (default: settings index.collection, 'pubmed')."),
]
#: `index load` and `index import`: the load stage's switches
ReplaceOpt = Annotated[
    bool, typer.Option("--rebuild", help="Replace the collection the alias serves, once the new one verifies.")]
AllowShrinkOpt = Annotated[
    bool, typer.Option("--allow-shrink", help="Switch the alias even when the new collection is much smaller.")]


def bundled_sample() -> Path:
    """The small real PubMed sample shipped for the demo and tests (~1,090 records)."""
    return Path(__file__).resolve().parents[2] / "indexing" / "resources" / "pubmed_sample"


@app.command("build")
@friendly_errors
def build(
    paths_given: Annotated[
        list[str] | None,
        typer.Argument(help="More input files or directories (a shell glob such as pubmed25n*.xml.gz).",
                       show_default=False, metavar="[PATHS]..."),
    ] = None,
    inputs: Annotated[
        list[str] | None,
        typer.Option("--input", "-i", help="PubMed/MEDLINE XML (.xml/.xml.gz), MEDLINE text or JSONL files or "
                     "directories. Repeatable, and takes several paths: --input a.xml.gz b.xml.gz."),
    ] = None,
    sample: Annotated[bool, typer.Option("--sample", help="Index the bundled real PubMed sample (demo).")] = False,
    collection: CollectionOpt = None,
    rebuild: Annotated[bool, typer.Option("--rebuild", help="Build a new collection and switch the alias only after it verifies.")] = False,
    allow_shrink: Annotated[
        bool,
        typer.Option("--allow-shrink", help="Switch the alias even when the rebuild holds fewer rows than "
                     "index.rebuild_min_fraction (0.9) of the collection it replaces."),
    ] = False,
    to_shards: Annotated[
        Path | None,
        typer.Option("--to-shards", help="Bulk path: embed into Parquet shards in this folder (one per input file, "
                     "resumable) instead of loading rows; then `biorag index load FOLDER`."),
    ] = None,
    engine: Annotated[
        str, typer.Option("--engine", help="local: this machine; ray: the embed stage on Ray Data (needs --to-shards).")
    ] = "local",
    address: Annotated[
        str | None, typer.Option("--address", help="--engine ray: the Ray cluster (ray://host:10001 or auto); "
                                 "default: a local Ray on 127.0.0.1.")
    ] = None,
    actors: Annotated[int, typer.Option("--actors", min=1, help="--engine ray: embedding actors when the cluster "
                                        "has no GPUs (with GPUs: one per GPU).")] = 2,
    preset: PresetOpt = None,
    set_: SetOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Read, clean, embed and load PubMed records into the index, then verify.

    A first build (or --rebuild) writes a new collection and points the alias at it only
    when every input file was read, the collection verifies against what the build wrote,
    and it is not much smaller than the index it replaces (--allow-shrink), so a failed
    rebuild leaves the old index serving. `biorag index gc` removes what failed builds left. Without --rebuild
    an existing index is updated in place (upserts by PMID; DeleteCitation removes records).
    A killed build resumes where it stopped when re-run with the same inputs.

    Examples:

      biorag index build --sample

      biorag index build --input pubmed25n0001.xml.gz --input updates/ --rebuild

      biorag index build --input baseline/pubmed25n000*.xml.gz --rebuild

      biorag index build --input baseline/ --to-shards shards/ && biorag index load shards/ --rebuild

      biorag index build --input /shared/baseline --engine ray --address auto --to-shards /shared/shards

      biorag index build -i records.jsonl --set index.embedder=/models/medcpt-article --set index.query_embedder=/models/medcpt-query
    """
    from indexing.build import build_index, format_report

    # `--input a b c` (a shell glob) leaves b and c as positional paths: both are inputs
    paths = list(inputs or []) + list(paths_given or [])
    if sample:
        paths.append(str(bundled_sample()))
    if not paths:
        raise InputError("nothing to index: give --input FILE_OR_DIR (repeatable) or --sample")
    if engine not in ("local", "ray"):
        raise InputError(f"--engine must be local or ray, not {engine!r}")
    if engine == "ray" and to_shards is None:
        raise InputError("--engine ray writes shards: give --to-shards FOLDER (one every Ray node can write), "
                         "then run `biorag index load FOLDER`")
    if address and engine != "ray":
        raise InputError("--address names a Ray cluster: use it with --engine ray")
    settings = settings_from_options(preset, set_)
    if to_shards is not None:
        from indexing.shards import embed_to_shards, format_shard_report

        if engine == "ray":
            from indexing.ray_build import ray_embed_to_shards

            shards = ray_embed_to_shards(settings, paths, to_shards, address=address, actors=actors)
        else:
            shards = embed_to_shards(settings, paths, to_shards, progress=not as_json)
        if as_json:
            print_json(shards.to_dict())
        else:
            typer.echo(format_shard_report(shards))
        if not shards.ok:
            raise typer.Exit(1)
        return
    report = build_index(settings, paths, alias=collection, rebuild=rebuild, progress=not as_json,
                         allow_shrink=allow_shrink)
    if as_json:
        print_json(report.to_dict())
    else:
        typer.echo(format_report(report))
    if not report.ok:
        raise typer.Exit(1)


@app.command("load")
@friendly_errors
def load(
    shard_dir: Annotated[Path, typer.Argument(help="Folder of shards made by `biorag index build --to-shards`.")],
    collection: CollectionOpt = None,
    rebuild: ReplaceOpt = False,
    allow_shrink: AllowShrinkOpt = False,
    preset: PresetOpt = None,
    set_: SetOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Bulk path, load stage: bring Parquet shards into a new collection, verify, switch the alias.

    On a Milvus server the shards are bulk-imported by the server (it must see the files);
    on Milvus Lite their rows are upserted. The alias moves only when every input has a
    finished shard and the collection verifies, as with `biorag index build`.
    """
    from indexing.build import format_report
    from indexing.bulk_load import load_shards

    settings = settings_from_options(preset, set_)
    report = load_shards(settings, shard_dir, alias=collection, rebuild=rebuild, allow_shrink=allow_shrink,
                         progress=not as_json)
    if as_json:
        print_json(report.to_dict())
    else:
        typer.echo(format_report(report))
        s = report.seconds
        typer.echo(f"load: {report.bulk_imported_shards} shard(s) bulk-imported by the server in "
                   f"{s.get('bulk_import', 0):.1f}s, the rest upserted as rows; rows {report.rows}; "
                   f"{report.rows / s['wall'] if s.get('wall') else 0:.0f} rows/s overall")
    if not report.ok:
        raise typer.Exit(1)


@app.command("export")
@friendly_errors
def export(
    out_dir: Annotated[Path, typer.Argument(help="New (or empty) folder for the snapshot.")],
    collection: CollectionOpt = None,
    shard_rows: Annotated[int, typer.Option("--shard-rows", min=1, help="Rows per Parquet shard.")] = 100_000,
    preset: PresetOpt = None,
    set_: SetOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Write the index as a snapshot: Parquet shards + a manifest (embedder and its weights'
    hash, dimensions, metric, MeSH vocabulary, rows, PMID range, build settings, a checksum
    per shard). Copy the folder to another machine and run `biorag index import FOLDER`."""
    from indexing.snapshot import export_index

    settings = settings_from_options(preset, set_)
    report = export_index(settings, out_dir, alias=collection, shard_rows=shard_rows)
    if as_json:
        print_json(report.to_dict())
    else:
        typer.echo(f"exported {report.collection}: {report.rows} rows (PMIDs {report.pmid_min}-{report.pmid_max}) "
                   f"in {report.shards} shard(s) to {report.out_dir} in {report.seconds:.1f}s\n"
                   f"load it elsewhere with: biorag index import {report.out_dir}")


@app.command("import")
@friendly_errors
def import_(
    snap_dir: Annotated[Path, typer.Argument(help="Folder written by `biorag index export`.")],
    collection: CollectionOpt = None,
    rebuild: ReplaceOpt = False,
    allow_shrink: AllowShrinkOpt = False,
    preset: PresetOpt = None,
    set_: SetOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Load a snapshot after verifying it: shard checksums, and its embedder against the query
    embedder the settings name. A refused snapshot changes nothing; an accepted one is loaded
    as `biorag index load` does and the alias switches only when the new collection verifies."""
    from indexing.build import format_report
    from indexing.snapshot import import_snapshot

    settings = settings_from_options(preset, set_)
    report = import_snapshot(settings, snap_dir, alias=collection, rebuild=rebuild, allow_shrink=allow_shrink,
                             progress=not as_json)
    if as_json:
        print_json(report.to_dict())
    else:
        typer.echo(format_report(report))
    if not report.ok:
        raise typer.Exit(1)


@app.command("stats")
@friendly_errors
def stats(collection: CollectionOpt = None, preset: PresetOpt = None, set_: SetOpt = None, as_json: JsonOpt = False) -> None:
    """Show what the index holds: collection behind the alias, rows, embedder, size on disk."""
    from indexing.stats import index_stats

    settings = settings_from_options(preset, set_)
    info = index_stats(settings, collection)
    if as_json:
        print_json(info)
        return
    for k, v in info.items():
        if k == "collections":
            typer.echo(f"other collections: {len(v)}" + ("" if v else " (none)"))
            for c in v:
                typer.echo(f"  {c['name']}: {c['status']}, {c['rows']} rows" + (f" ({c['note']})" if c["note"] else ""))
        elif k == "removable_by_gc":
            if v:
                typer.echo(f"`biorag index gc` would remove {len(v)}: {', '.join(v)}")
        else:
            typer.echo(f"{k}: {v}")


@app.command("gc")
@friendly_errors
def gc(
    collection: CollectionOpt = None,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Show what would be removed; remove nothing.")] = False,
    keep_previous: Annotated[bool, typer.Option(
        "--keep-previous/--no-keep-previous",
        help="Keep the collection the alias served before the last switch, for `biorag index rollback`.")] = True,
    preset: PresetOpt = None,
    set_: SetOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Remove collections left by failed or replaced builds of the alias.

    Never removes the collection the alias points to, a build that is still running, or a
    collection `biorag index build` did not make for this alias; keeps the previous
    collection (the rollback target) unless --no-keep-previous. A failed build's job file
    goes with its collection, so the next build starts afresh.

    Safe beside a server searching the alias. With a Milvus server (index.uri) run it
    here; with a Milvus Lite file the server owns the file: ask the server instead,
    `curl -X POST http://HOST:8000/v1/index/gc` (add `?keep_previous=false` to drop the
    previous collection too).
    """
    from indexing.leftovers import collect_garbage, format_gc

    settings = settings_from_options(preset, set_)
    alias = collection or settings.index.collection
    client = open_index(settings)
    try:
        report = collect_garbage(client, settings, alias, dry_run=dry_run, keep_previous=keep_previous)
    finally:
        client.close()
    if as_json:
        print_json(report.to_dict())
    else:
        typer.echo(format_gc(report))


@app.command("rollback")
@friendly_errors
def rollback(
    collection: CollectionOpt = None,
    preset: PresetOpt = None,
    set_: SetOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Point the alias back at the collection it served before the last switch.

    The collection it leaves becomes the previous one, so a second rollback undoes the
    first. Searches keep answering throughout: the alias moves in one step. With a Milvus
    Lite file held by a running server, ask the server instead:
    `curl -X POST http://HOST:8000/v1/index/rollback`.
    """
    from indexing.leftovers import NoPrevious
    from indexing.leftovers import rollback as roll_back

    settings = settings_from_options(preset, set_)
    alias = collection or settings.index.collection
    client = open_index(settings)
    try:
        report = roll_back(client, settings, alias)
    except NoPrevious as e:
        raise InputError(str(e)) from None
    finally:
        client.close()
    if as_json:
        print_json(report.to_dict())
    else:
        typer.echo(f"alias '{report.alias}' -> {report.serving} ({report.rows} rows); was {report.rolled_back_from}, "
                   "kept as the previous collection")


@app.command("verify")
@friendly_errors
def verify(
    collection: CollectionOpt = None,
    sample: Annotated[int, typer.Option("--sample", help="Round trips to check.")] = 8,
    preset: PresetOpt = None,
    set_: SetOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Check counts, recorded embedder and dimensions, and a sample of round trips."""
    from biorag.ml import pubmed_schema as ps
    from biorag.ml.embedder import Embedder
    from indexing.verify import verify_collection

    settings = settings_from_options(preset, set_)
    alias = collection or settings.index.collection
    client = open_index(settings)
    try:
        target = ps.require_collection(client, alias, settings.milvus_uri)
        report = verify_collection(client, target, Embedder.from_settings(settings), sample=sample)
    finally:
        client.close()
    if as_json:
        print_json(report.to_dict())
    else:
        typer.echo(
            f"{target}: {report.rows} rows, dim {report.dim}, embedder {report.meta.get('embedder')}; "
            f"round trips {report.round_trips_ok}/{report.sampled} ok"
        )
        for p in report.problems:
            typer.echo(f"problem: {p}")
        typer.echo("OK" if report.ok else "FAILED")
    if not report.ok:
        raise typer.Exit(1)


@app.command("count-mesh")
@friendly_errors
def count_mesh(
    collection: CollectionOpt = None,
    force: Annotated[bool, typer.Option("--force", help="Recount even when the index already has counts.")] = False,
    preset: PresetOpt = None,
    set_: SetOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Count the MeSH descriptors of an index built before the counts were kept.

    The PubMed search scores a selective MeSH filter exactly, and needs each descriptor's row
    count (kept by every build since) to know when; an older index falls back to HNSW for
    every filter until it is counted. Reads pmid and MeSH only, page by page; with Milvus
    Lite, stop `biorag serve` first (one process holds the file).
    """
    from biorag.ml import pubmed_schema as ps
    from biorag.ml.vector_store import backend_of
    from indexing.mesh_counts import ensure_counts

    settings = settings_from_options(preset, set_)
    alias = collection or settings.index.collection
    client = open_index(settings)
    try:
        target = ps.require_collection(client, alias, settings.milvus_uri)
        counted = ensure_counts(client, target, backend_of(settings.milvus_uri), force=force)
        counts = ps.read_mesh_counts(client.describe_collection(target)) or {}
    finally:
        client.close()
    info = {"collection": target, "counted": counted, "descriptors": len(counts),
            "exact_path_descriptors": sum(1 for n in counts.values() if n <= settings.index.exact_filter_rows)}
    if as_json:
        print_json(info)
        return
    if counted:
        typer.echo(f"{target}: counted {info['descriptors']} MeSH descriptors; "
                   f"{info['exact_path_descriptors']} match at most {settings.index.exact_filter_rows} rows "
                   "(index.exact_filter_rows) and are searched exactly")
    else:
        typer.echo(f"{target}: already counted ({info['descriptors']} descriptors); --force recounts")
