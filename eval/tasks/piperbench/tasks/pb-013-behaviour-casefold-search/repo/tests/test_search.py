from addressbook import find

CONTACTS = [
    {"name": "Erika Mustermann", "street": "Hauptstraße 5"},
    {"name": "Max Weber", "street": "Hauptstraße 12"},
    {"name": "Jan de Boer", "street": "Kerkstraat 1"},
    {"name": "Οδυσσέας Ελύτης", "street": "Σοφοκλέους 3"},
]


def names(found):
    return [c["name"] for c in found]


def test_capital_ss_finds_sharp_s():
    assert names(find(CONTACTS, "HAUPTSTRASSE")) == ["Erika Mustermann", "Max Weber"]


def test_lower_case_ss_finds_sharp_s():
    assert names(find(CONTACTS, "hauptstrasse 12")) == ["Max Weber"]


def test_case_is_ignored():
    assert names(find(CONTACTS, "DE BOER")) == ["Jan de Boer"]
    assert names(find(CONTACTS, "hauptstraße")) == ["Erika Mustermann", "Max Weber"]


def test_extra_spaces_are_ignored():
    assert names(find(CONTACTS, "  max   weber ")) == ["Max Weber"]


def test_greek_upper_case():
    assert names(find(CONTACTS, "ΣΟΦΟΚΛΈΟΥΣ")) == ["Οδυσσέας Ελύτης"]


def test_blank_query_finds_nothing():
    assert find(CONTACTS, "   ") == []
