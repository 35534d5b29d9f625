"""A *cell*: one condition at one risk p (and, in design 4, one seat split), holding ``games`` games,
with the identity and seeds of each of its games."""

from __future__ import annotations

from dataclasses import dataclass

from workflow_scripts.crg.design.seeds import derive_seed
from workflow_scripts.crg.design.numbers import number


@dataclass(frozen=True)
class Cell:
    """One condition at one risk (and seat split): ``games`` games.

    Attributes:
        design, lineup, condition: names as in the output path.
        p: risk.
        focal: seats of the pair's first model (design 4), else None.
        games: games in the cell.
    """

    design: str
    lineup: str
    condition: str
    p: float
    focal: int | None
    games: int

    @property
    def id(self) -> str:
        """``<design>/<lineup>/<condition>/p=<p>[/focal=<k>]``."""
        base = f"{self.design}/{self.lineup}/{self.condition}/p={number(self.p)}"
        return base if self.focal is None else f"{base}/focal={self.focal}"

    def game_id(self, game: int) -> str:
        """``<cell id>/game=<index>``: unique over the whole study."""
        return f"{self.id}/game={game}"

    def game_seed(self, seed: int, game: int) -> int:
        """Seed of the game's catastrophe draw (63-bit, from ``crg.seed`` and the game id)."""
        return derive_seed(seed, self.game_id(game), "catastrophe")

    def seat_seed(self, seed: int, game: int) -> int:
        """Seed of the game's seat-order shuffle (63-bit, from ``crg.seed`` and the game id)."""
        return derive_seed(seed, self.game_id(game), "seats")
