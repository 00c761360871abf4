from signup.validate import form_errors, valid_email, valid_username

FORM = {"username": "jane_doe", "email": "jane.doe@example.com", "password": "correct horse"}


def test_plus_tag_is_accepted():
    assert valid_email("jane+shop@example.com")
    assert valid_email("first.last+news@mail.example.org")


def test_form_with_plus_address_has_no_errors():
    assert form_errors({**FORM, "email": "jane+shop@example.com"}) == {}


def test_plain_address():
    assert valid_email(" jane.doe@example.com ")
    assert form_errors(FORM) == {}


def test_broken_addresses_are_rejected():
    for address in ["jane", "jane@", "@example.com", "jane@localhost", "ja ne@example.com"]:
        assert not valid_email(address)


def test_username_rules():
    assert valid_username("jane_doe")
    assert not valid_username("Jane")
    assert not valid_username("1jane")
