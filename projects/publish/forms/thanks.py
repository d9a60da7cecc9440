"""The plain thank-you page's words, in the site's language where we have them
(the primary subtag of its page's `lang`), else English."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Thanks:
    lang: str
    title: str
    text: str
    back: str


_WORDS = {
    "en": ("Thank you", "Your message was sent.", "Back to the site"),
    "fr": ("Merci", "Votre message a bien été envoyé.", "Retour au site"),
    "de": ("Vielen Dank", "Ihre Nachricht wurde gesendet.", "Zurück zur Website"),
    "es": ("Gracias", "Tu mensaje se ha enviado.", "Volver al sitio"),
    "it": ("Grazie", "Il tuo messaggio è stato inviato.", "Torna al sito"),
    "pt": ("Obrigado", "A sua mensagem foi enviada.", "Voltar ao site"),
    "nl": ("Bedankt", "Je bericht is verzonden.", "Terug naar de site"),
    "sv": ("Tack", "Ditt meddelande har skickats.", "Tillbaka till webbplatsen"),
    "da": ("Tak", "Din besked er sendt.", "Tilbage til siden"),
    "nb": ("Takk", "Meldingen din er sendt.", "Tilbake til nettstedet"),
    "fi": ("Kiitos", "Viestisi on lähetetty.", "Takaisin sivustolle"),
    "pl": ("Dziękujemy", "Twoja wiadomość została wysłana.", "Powrót do strony"),
    "cs": ("Děkujeme", "Vaše zpráva byla odeslána.", "Zpět na web"),
    "ja": ("ありがとうございます", "メッセージを送信しました。", "サイトに戻る"),
    "zh": ("谢谢", "您的留言已发送。", "返回网站"),
}


def thanks_for(lang: str) -> Thanks:
    primary = lang.split("-", 1)[0].lower()
    if primary == "no":
        primary = "nb"
    title, text, back = _WORDS.get(primary, _WORDS["en"])
    return Thanks(lang=lang if primary in _WORDS else "en", title=title, text=text, back=back)
