"""The example contents of the sections the offline demo writes, by section
and by the kind of place, or its "family" (a bakery and a café are food
places; a club and a school serve a community): a studio's services and a
bakery's, a class's prices and an event's tickets, what people ask a
restaurant and what they ask a wedding's guests. They read as a real site
would; the details a place must give itself are examples, and the demo's
answer says so (demo.content.examples_note).
"""

from __future__ import annotations

# One line of content on each kind of card list, by section id and "family" of kind.
Cards = tuple[tuple[str, str], ...]
FAMILY = {
    "bakery": "food",
    "café": "food",
    "coffee shop": "food",
    "restaurant": "food",
    "portfolio": "creative",
    "photography studio": "creative",
    "studio": "creative",
    "product": "product",
    "app": "product",
    "wedding": "event",
    "club": "community",
    "school": "community",
}
SERVICES: dict[str, Cards] = {
    "food": (
        ("Celebration cakes", "Order three days ahead and we will bake it for you."),
        ("Catering", "Platters for meetings, parties and long lunches."),
        ("Gift cards", "For any amount, in the shop or by email."),
    ),
    "creative": (
        ("Brand identity", "Names, logos and the look that ties them together."),
        ("Websites", "Simple, fast sites that are easy to keep up to date."),
        ("Print", "Posters, menus and packaging, ready for the printer."),
    ),
    "product": (
        ("Quick to set up", "Sign up and start in under five minutes."),
        ("Works everywhere", "On your phone, your tablet and your laptop."),
        ("Private by default", "Your data stays yours; we never sell it."),
    ),
    "": (
        ("Advice", "A first conversation to understand what you need, free of charge."),
        ("Made to measure", "Work planned around you, with a clear price up front."),
        ("Aftercare", "We stay in touch and fix anything that needs it."),
    ),
}
PRICING: dict[str, Cards] = {
    "class": (
        ("Drop-in class", "$18: any class, no booking needed."),
        ("Ten-class pass", "$150: use it within three months."),
        ("Unlimited month", "$95: as many classes as you like."),
    ),
    "event": (
        ("Day ticket", "$45: the whole day, lunch included."),
        ("Weekend ticket", "$80: both days, with the evening party."),
        ("Concession", "$25: for students and anyone who needs it; just ask."),
    ),
    "creative": (
        ("Half day", "$450: a focused session with edited results within a week."),
        ("Full day", "$800: a whole day, two rounds of changes included."),
        ("Project", "From $1,800: planned together, paid in stages."),
    ),
    "product": (
        ("Free", "$0: everything you need to try it, for one person."),
        ("Pro", "$12 a month: no limits, priority help."),
        ("Team", "$29 a month: shared spaces for up to ten people."),
    ),
    "": (
        ("Basic", "$49: the essentials, done well."),
        ("Standard", "$99: our most popular choice."),
        ("Premium", "$199: everything, with extra care."),
    ),
}
TEAM: dict[str, Cards] = {
    "food": (
        ("Maya Lindqvist", "Founder and head baker"),
        ("Tom Okafor", "Pastry and cakes"),
        ("Inès Duval", "Front of house and coffee"),
    ),
    "": (
        ("Maya Lindqvist", "Founder"),
        ("Tom Okafor", "Projects and planning"),
        ("Inès Duval", "Clients and care"),
    ),
}
PROJECTS: Cards = (
    ("Roastery rebrand", "A new name, logo and bags for a small coffee roaster."),
    ("Harbour festival", "Posters and a programme for a weekend by the sea."),
    ("Bookshop website", "A calm, quick site with the week's new arrivals."),
)
EVENTS: dict[str, Cards] = {
    "club": (
        ("Every Tuesday, 19:00", "Club night: all welcome, and your first visit is free"),
        ("Saturday 12 April", "Open day: come and have a go"),
        ("Saturday 7 June", "Summer social, with food and prizes"),
    ),
    "school": (
        ("Thursday 8 May", "Open morning for new families"),
        ("Friday 20 June", "Sports day, on the field"),
        ("Saturday 5 July", "Summer fair: games, cake and the school band"),
    ),
    "band": (
        ("Friday 14 March", "The Lantern, doors at 19:30"),
        ("Saturday 5 April", "Summer Fields festival, main stage"),
        ("Thursday 22 May", "The Old Mill, an acoustic night"),
    ),
    "wedding": (
        ("14:00, the ceremony", "In the garden, or the chapel if it rains"),
        ("16:00, drinks and photos", "On the lawn, with music"),
        ("18:30, dinner and dancing", "In the barn, until late"),
    ),
    "": (
        ("Saturday 12 April", "An open morning: come and meet us"),
        ("Thursday 8 May", "An evening talk, with tea and cake"),
        ("Saturday 7 June", "Our summer party"),
    ),
}
# A product a shop sells: (name, line, price).
Priced = tuple[tuple[str, str, str], ...]
PRODUCTS: Priced = (
    ("Best seller", "Our most-loved piece, made by hand in small batches.", "$24"),
    ("Gift set", "Three favourites in a box, wrapped and ready to give.", "$45"),
    ("Gift card", "For any amount, sent by email the same day.", "From $20"),
)
TICKETS: Priced = (
    ("Early bird", "Until the end of the month, while they last.", "$35"),
    ("Standard", "Everything, all day.", "$45"),
    ("Concession", "For students and anyone who needs it; just ask.", "$25"),
)
BLOG_POSTS: Cards = (
    ("Why I started writing", "The first post: what this blog is for, and what comes next."),
    ("A weekend well spent", "Notes from a trip, with what went right and what did not."),
    ("Five things I learned", "Small lessons from my first year, in no particular order."),
)
POSTS: Cards = (
    ("A new season", "What we are planning for the months ahead."),
    ("Behind the scenes", "A day in our life, from first light to closing."),
    ("Five things we learned", "Small lessons from our first year."),
)
FAQ: dict[str, Cards] = {
    "class": (
        ("Do I need any experience?", "No: beginners are welcome in every class."),
        ("What should I bring?", "Comfortable clothes and some water; we have the rest."),
        ("Can I try a class first?", "Yes: your first class is free."),
    ),
    "event": (
        ("How do I get there?", "By train to Riverside, then a ten-minute walk; see Find us."),
        ("Can I bring children?", "Yes, and under-12s come free."),
        ("What if I can't come after all?", "Tell us a week ahead and we will refund your ticket."),
    ),
    "food": (
        ("Can I order ahead?", "Yes: call us or drop by the day before."),
        ("Do you cater for allergies?", "Tell us what to avoid and we will help you choose."),
        ("Can I bring my dog?", "Of course, and there is water by the door."),
    ),
    "wedding": (
        ("What should I wear?", "Smart and comfortable: the ceremony is on the grass."),
        ("Can I bring a guest?", "Your invitation says who is invited; ask us if unsure."),
        ("Is there parking?", "Yes, in the field next to the barn."),
    ),
    "product": (
        ("Is there a free trial?", "The free plan has no time limit."),
        ("Can I cancel any time?", "Yes, in two clicks, and you keep your data."),
        ("Where is my data kept?", "On servers in Europe, encrypted."),
    ),
    "": (
        ("How do I book?", "Write to us or call; we answer within a day."),
        ("Where are you?", "At 12 Mill Lane, Riverside, two minutes from the station."),
        ("How can I pay?", "By card, bank transfer or cash."),
    ),
}
QUOTES: dict[str, Cards] = {
    "food": (
        ("The best bread in town, and the warmest welcome.", "Claire, a regular"),
        ("I come for the coffee and stay for the buns.", "Sam, next door"),
    ),
    "": (
        ("Clear, kind and quick. We will be back.", "Claire, a client"),
        ("They listened first, then did exactly what we needed.", "Sam, a client"),
    ),
}
GALLERY: dict[str, tuple[str, ...]] = {
    "food": (
        "Morning bake",
        "At the counter",
        "Fresh from the oven",
        "Our corner",
        "Coffee time",
        "Late lunch",
    ),
    "band": (
        "Live at The Lantern",
        "In the studio",
        "On the road",
        "Soundcheck",
        "Summer Fields",
        "Encore",
    ),
    "creative": (
        "Harbour at dawn",
        "Studio portrait",
        "Autumn market",
        "Quiet street",
        "Light and shade",
        "Field notes",
    ),
    "": ("Our place", "At work", "The team", "Details", "Before and after", "A good day"),
}
ABOUT: dict[str, str] = {
    "class": (
        "{name} is a small studio with friendly teachers and classes for every level. "
        "Come as you are: everyone starts somewhere."
    ),
    "event": (
        "{name} brings people together for a day to remember. Here is everything you need "
        "to know, and we will add more as the day comes closer."
    ),
    "community": (
        "{name} is run by people who care about it, for everyone nearby. New faces are "
        "always welcome: come and see what we do."
    ),
    "shop": (
        "{name} is a small, independent shop. We choose every piece ourselves and pack "
        "every order by hand."
    ),
    "blog": (
        "{name} is where I write about what I love: notes, stories and the lessons I learn "
        "along the way."
    ),
    "food": (
        "{name} began with one oven and a lot of early mornings. We still make everything "
        "on site, in small batches, with flour and milk from farms nearby."
    ),
    "creative": (
        "{name} is a small studio that cares about clear ideas and careful work. "
        "We take on a few projects at a time, so each gets our full attention."
    ),
    "band": "{name} is four friends, a van and a lot of loud, happy songs.",
    "wedding": "We met at a friend's party and never stopped talking. Now we are getting married!",
    "product": "{name} started because we needed it ourselves. Now thousands of people use it.",
    "": (
        "{name} is a small, independent business. We know our customers by name and "
        "take the time to do things properly."
    ),
}
