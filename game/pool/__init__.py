"""d6 success pools ("Dice Rules", seed 002): rules model and exact odds."""

from game.pool.odds import (
    MAX_POOL_DICE,
    Difficulty,
    PoolOdds,
    PoolRoll,
    PoolRules,
    TargetNumber,
    load_rules,
    pool_odds,
    read_pool,
)

__all__ = ["MAX_POOL_DICE", "Difficulty", "PoolOdds", "PoolRoll", "PoolRules", "TargetNumber",
           "load_rules", "pool_odds", "read_pool"]
