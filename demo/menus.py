"""What the offline demo puts on a food place's menu and on its opening
hours: items with a line each and a price, by the kind of place. The prices
and times are examples, and the demo's answer says so (demo.content)."""

from __future__ import annotations

# (group heading or "", [(item, description, price)]), by kind.
MenuGroups = tuple[tuple[str, tuple[tuple[str, str, str], ...]], ...]

MENUS: dict[str, MenuGroups] = {
    "bakery": (
        (
            "",
            (
                (
                    "Country sourdough",
                    "Slow-proved for 36 hours, with a dark, crackling crust",
                    "$7.50",
                ),
                ("Butter croissant", "Laminated by hand every morning", "$3.60"),
                ("Cinnamon bun", "Cardamom dough, brown sugar and a sticky glaze", "$4.20"),
                ("Seeded rye", "Sunflower, pumpkin and flax seeds, dense and moist", "$6.80"),
                ("Lemon tart", "Crisp pastry, sharp lemon curd, by the slice", "$5.00"),
                ("Filter coffee", "Roasted down the road, refilled for free", "$3.00"),
            ),
        ),
    ),
    "café": (
        (
            "Coffee",
            (
                ("Espresso", "A double shot of our house blend", "$3.00"),
                ("Flat white", "Silky milk over a double ristretto", "$4.20"),
                ("Oat latte", "Made with barista oat milk", "$4.60"),
            ),
        ),
        (
            "To eat",
            (
                ("Banana bread", "Toasted, with salted butter", "$4.00"),
                ("Avocado toast", "Sourdough, chilli flakes and lime", "$9.50"),
                ("Grilled cheese", "Three cheeses and a little mustard", "$8.50"),
            ),
        ),
    ),
    "restaurant": (
        (
            "Starters",
            (
                ("Burrata", "Roasted peaches, basil and olive oil", "$14"),
                ("Soup of the day", "With bread from the bakery next door", "$9"),
            ),
        ),
        (
            "Mains",
            (
                ("Roast chicken", "Lemon, thyme and crisp potatoes", "$24"),
                ("Wild mushroom risotto", "Parmesan and a little truffle oil", "$21"),
                ("Catch of the day", "Ask us what came in this morning", "$28"),
            ),
        ),
        (
            "Desserts",
            (
                ("Dark chocolate mousse", "With a salted caramel centre", "$10"),
                ("Fruit crumble", "Whatever is in season, with custard", "$9"),
            ),
        ),
    ),
}
MENUS["coffee shop"] = MENUS["café"]

# (days, times), by kind; a place the demo has no hours for gets the last.
HOURS: dict[str, tuple[tuple[str, str], ...]] = {
    "bakery": (
        ("Tuesday to Friday", "7:00 to 18:00"),
        ("Saturday", "7:00 to 16:00"),
        ("Sunday", "8:00 to 13:00"),
        ("Monday", "Closed, resting the ovens"),
    ),
    "café": (
        ("Monday to Friday", "7:30 to 17:00"),
        ("Saturday and Sunday", "9:00 to 16:00"),
    ),
    "restaurant": (
        ("Tuesday to Thursday", "18:00 to 22:00"),
        ("Friday and Saturday", "18:00 to 23:00"),
        ("Sunday lunch", "12:00 to 16:00"),
        ("Monday", "Closed"),
    ),
    "": (
        ("Monday to Friday", "9:00 to 17:30"),
        ("Saturday", "10:00 to 14:00"),
        ("Sunday", "Closed"),
    ),
}
HOURS["coffee shop"] = HOURS["café"]
