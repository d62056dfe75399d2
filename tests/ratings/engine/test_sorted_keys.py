"""Lookups in sorted integer keys (ratings.engine.sorted_keys): what the publication's loading relies on."""

import numpy as np

from ratings.engine.sorted_keys import distinct_sorted, found_sorted, lookup_sorted


def test_lookup_gives_the_value_of_each_key_and_the_default_where_it_is_absent():
    keys = np.array([3, 7, 9], dtype=np.int64)
    values = np.array([30.0, 70.0, 90.0])
    query = np.array([9, 1, 7, 10, 3], dtype=np.int64)
    assert np.array_equal(
        lookup_sorted(keys, values, query, np.nan), [90.0, np.nan, 70.0, np.nan, 30.0], equal_nan=True
    )


def test_lookup_in_no_keys_or_for_no_query_is_all_default():
    empty = np.zeros(0, dtype=np.int64)
    texts = np.array(["a"], dtype=object)
    assert lookup_sorted(empty, np.zeros(0, dtype=object), np.array([1, 2]), "").tolist() == ["", ""]
    assert lookup_sorted(np.array([1]), texts, empty, "").tolist() == []


def test_distinct_is_every_value_once_in_order():
    assert distinct_sorted(np.array([5, 1, 5, 3, 1], dtype=np.int64)).tolist() == [1, 3, 5]
    assert distinct_sorted(np.zeros(0, dtype=np.int64)).tolist() == []


def test_found_says_which_searchsorted_positions_hold_the_key():
    keys = np.array([2, 4, 6], dtype=np.int64)
    query = np.array([4, 5, 7, 2], dtype=np.int64)
    assert found_sorted(keys, np.searchsorted(keys, query), query).tolist() == [True, False, False, True]
    assert found_sorted(np.zeros(0, dtype=np.int64), np.zeros(2, dtype=np.int64), query[:2]).tolist() == [False, False]
