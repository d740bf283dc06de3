"""Jupyter notebooks (``.ipynb``) read by the loaders and indexed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import ragloom
from ragloom.builtin.loaders.directory import DirectoryLoader
from ragloom.builtin.loaders.parsers import notebook as notebook_parser

from .conftest import basic_config
from .formats import read, write


def analysis() -> dict:
    """A notebook as Jupyter saves one (nbformat 4): Markdown, code with a
    printed line, a result, a coloured error, a progress bar and a plot."""
    return {
        "nbformat": 4,
        "nbformat_minor": 5,
        "metadata": {"kernelspec": {"name": "python3", "language": "python"}},
        "cells": [
            {
                "cell_type": "markdown",
                "metadata": {},
                "source": ["# Churn analysis\n", "\n", "We load the **March** export."],
            },
            {
                "cell_type": "code",
                "metadata": {},
                "execution_count": 1,
                "source": "df = load('march.csv')\nprint(len(df))",
                "outputs": [
                    {"output_type": "stream", "name": "stdout", "text": ["4127\n"]},
                    {
                        "output_type": "stream",
                        "name": "stderr",
                        "text": "train:  10%|#   |\rtrain: 100%|####|\n",
                    },
                ],
            },
            {
                "cell_type": "markdown",
                "metadata": {},
                "source": "## Result\n\nChurn fell in March.",
            },
            {
                "cell_type": "code",
                "metadata": {},
                "execution_count": 2,
                "source": ["churn(df)"],
                "outputs": [
                    {
                        "output_type": "execute_result",
                        "execution_count": 2,
                        "metadata": {},
                        "data": {"text/plain": ["0.031"], "text/html": ["<b>0.031</b>"]},
                    },
                    {
                        "output_type": "display_data",
                        "metadata": {},
                        "data": {"image/png": "iVBORw0KGgo="},
                    },
                    {
                        "output_type": "error",
                        "ename": "KeyError",
                        "evalue": "'region'",
                        "traceback": ["\x1b[0;31mKeyError\x1b[0m: 'region'"],
                    },
                ],
            },
            {"cell_type": "code", "metadata": {}, "source": "", "outputs": []},
            {"cell_type": "raw", "metadata": {}, "source": "Reviewed by Ada."},
        ],
    }


def test_a_notebook_reads_as_markdown_with_code_and_outputs(tmp_path: Path, context) -> None:
    [document] = read(context, write(tmp_path, "nb/churn.ipynb", json.dumps(analysis())))
    assert document.text == (
        "# Churn analysis\n\nWe load the **March** export.\n\n"
        "```python\ndf = load('march.csv')\nprint(len(df))\n```\n\n"
        "```output\n4127\ntrain: 100%|####|\n```\n\n"
        "## Result\n\nChurn fell in March.\n\n"
        "```python\nchurn(df)\n```\n\n"
        "```output\n0.031\nKeyError: 'region'\n```\n\n"
        "Reviewed by Ada.\n"
    )
    assert "iVBOR" not in document.text  # a plot: left out
    assert document.metadata["title"] == "Churn analysis"
    assert document.metadata["kernel_language"] == "python"
    assert document.metadata["cells"] == 6 and not context.report


def test_long_output_is_cut_and_says_so_and_fences_hold(
    tmp_path: Path, context, monkeypatch
) -> None:
    monkeypatch.setattr(notebook_parser, "MAX_OUTPUT", 10)
    notebook = {
        "nbformat": 4,
        "metadata": {"title": "Demo"},
        "cells": [
            {
                "cell_type": "code",
                "source": 'print("```")',
                "outputs": [{"output_type": "stream", "text": "```\n" + "x" * 50}],
            }
        ],
    }
    [document] = read(context, write(tmp_path, "d.ipynb", json.dumps(notebook)))
    assert document.text == (
        '```\nprint("```")\n```\n\n'
        "````output\n```\nxxxxxx\n… (44 more characters of output left out)\n````\n"
    )
    assert document.metadata["title"] == "Demo" and "kernel_language" not in document.metadata


def test_nbformat_3_worksheets_are_read(tmp_path: Path, context) -> None:
    notebook = {
        "nbformat": 3,
        "metadata": {},
        "worksheets": [
            {
                "cells": [
                    {"cell_type": "heading", "level": 2, "source": ["Setup"]},
                    {
                        "cell_type": "code",
                        "language": "R",  # nbformat 3: on each code cell
                        "input": "x <- 1",
                        "outputs": [{"output_type": "pyout", "text": ["[1] 1"]}],
                    },
                ]
            }
        ],
    }
    [document] = read(context, write(tmp_path, "old.ipynb", json.dumps(notebook)))
    assert document.text == "## Setup\n\n```r\nx <- 1\n```\n\n```output\n[1] 1\n```\n"
    assert document.metadata["title"] == "Setup"  # its heading cell
    assert document.metadata["kernel_language"] == "r"


@pytest.mark.parametrize(
    ("data", "said"),
    [
        ('{"cells": [', "not a readable notebook (JSON error at line 1: "),
        ('{"metadata": {}}', "not a readable notebook (no list of cells in its JSON); skipped"),
        ('{"cells": [{"cell_type": "code", "source": ""}]}', "notebook with no text in its cells"),
    ],
)
def test_bad_notebooks_are_reported_and_the_rest_loads(
    tmp_path: Path, context, data: str, said: str
) -> None:
    write(tmp_path, "nb/bad.ipynb", data)
    write(tmp_path, "nb/good.ipynb", json.dumps(analysis()))
    loader = DirectoryLoader(path="nb")
    loader.open(context)
    assert [d.id for d in loader.load()] == ["nb/good.ipynb"]
    [(source, message)] = context.report
    assert source == "nb/bad.ipynb" and message.startswith(said), message


def test_indexed_cited_by_section(tmp_path: Path, pm) -> None:
    write(tmp_path, "docs/churn.ipynb", json.dumps(analysis()))
    config = basic_config(chunker={"type": "markdown", "size": 200, "overlap": 0})
    with ragloom.load(config, plugin_manager=pm, base_dir=tmp_path) as pipeline:
        assert list(pipeline.index().added) == ["docs/churn.ipynb"]  # in the default include
        hit = pipeline.retrieve("churn fell in March result", k=1)[0]
        assert hit.chunk.label == "docs/churn.ipynb#result"


def test_open_fences_plot_placeholders_and_deep_json(tmp_path: Path, context) -> None:
    """A Markdown cell with an open fence swallowed the next cells' headings;
    a plot's "<Figure size ...>" was read as output; a 200 KB notebook of
    nested lists stopped the whole run (RecursionError)."""
    notebook = {
        "nbformat": 4,
        "cells": [
            {"cell_type": "markdown", "source": "Run:\n```bash\n# Not a title\nmake\n"},
            {"cell_type": "markdown", "source": "# Real heading\n\nText."},
            {
                "cell_type": "code",
                "source": "df.describe()\nplt.plot(x)",
                "outputs": [
                    {"output_type": "execute_result", "data": {"text/plain": "count  3.0"}},
                    {
                        "output_type": "display_data",
                        "data": {"image/png": "iVBOR", "text/plain": "<Figure size 640x480>"},
                    },
                ],
            },
        ],
    }
    [document] = read(context, write(tmp_path, "nb/a.ipynb", json.dumps(notebook)))
    assert document.text == (
        "Run:\n```bash\n# Not a title\nmake\n```\n\n# Real heading\n\nText.\n\n"
        "```\ndf.describe()\nplt.plot(x)\n```\n\n```output\ncount  3.0\n```\n"
    )
    assert document.metadata["title"] == "Real heading"
    write(tmp_path, "nb/deep.ipynb", "[" * 100_000 + "]" * 100_000)
    loader = DirectoryLoader(path="nb")
    loader.open(context)
    assert [d.id for d in loader.load()] == ["nb/a.ipynb"]
    [(source, message)] = context.report
    assert source == "nb/deep.ipynb" and message.startswith("could not be read as notebook (")
