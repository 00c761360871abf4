from members.directory import directory_lines, display_name


def member(first, last):
    return {"first": first, "last": last}


def test_surnames_ignore_case_and_accents():
    members = [
        member("Eva", "Zimmermann"),
        member("Anna", "de Vries"),
        member("Tom", "Becker"),
        member("Jan", "Visser"),
        member("Rosa", "Álvarez"),
    ]
    assert directory_lines(members) == [
        "Álvarez, Rosa",
        "Becker, Tom",
        "de Vries, Anna",
        "Visser, Jan",
        "Zimmermann, Eva",
    ]


def test_first_names_break_ties_the_same_way():
    members = [member("Tom", "Becker"), member("anna", "Becker"), member("Émile", "Becker")]
    assert directory_lines(members) == ["Becker, anna", "Becker, Émile", "Becker, Tom"]


def test_plain_names():
    members = [member("Ann", "Smith"), member("Bo", "Jansen"), member("Al", "Smith")]
    assert directory_lines(members) == ["Jansen, Bo", "Smith, Al", "Smith, Ann"]


def test_display_name():
    assert display_name(member("Anna", "de Vries")) == "de Vries, Anna"


def test_empty_directory():
    assert directory_lines([]) == []
