from shop import Cart

SAVED = [{"sku": "apple", "quantity": 2, "unit_cents": 40}]


def test_new_cart_is_empty_after_another_cart_was_used():
    first = Cart("ann")
    first.add("apple", 3, 40)
    second = Cart("bob")
    assert second.count() == 0
    assert second.lines == []


def test_carts_do_not_share_lines():
    ann, bob = Cart("ann"), Cart("bob")
    bob.add("pear", 1, 55)
    assert [line["sku"] for line in ann.lines] == []
    assert bob.total_cents() == 55


def test_restore_and_add_merges_same_sku():
    cart = Cart.restore("cy", SAVED)
    cart.add("apple", 1)
    cart.add("milk", 1, 99)
    assert cart.count() == 4
    assert cart.total_cents() == 3 * 40 + 99


def test_restore_copies_saved_lines():
    cart = Cart.restore("di", SAVED)
    cart.add("apple", 5)
    assert SAVED[0]["quantity"] == 2


def test_remove():
    cart = Cart.restore("ed", SAVED + [{"sku": "milk", "quantity": 1, "unit_cents": 99}])
    cart.remove("apple")
    assert cart.count() == 1
    assert cart.total_cents() == 99
