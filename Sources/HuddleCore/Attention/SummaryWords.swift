import HuddleLocalization

/// The titles of a scheduled summary ("Your Morning Summary") in every language of ``HuddleStrings``, chosen for
/// the viewer as the page's words are. They are Huddle's words, not Apple's: Apple's localized titles are not in
/// its documentation (docs/summary-and-focus.md).
enum SummaryWords {
    /// Morning, afternoon and evening, by language tag.
    static let translations: [String: (morning: String, afternoon: String, evening: String)] = [
        "ar": ("ملخصك الصباحي", "ملخصك بعد الظهر", "ملخصك المسائي"),
        "bg": ("Вашето сутрешно обобщение", "Вашето следобедно обобщение", "Вашето вечерно обобщение"),
        "bn": ("আপনার সকালের সারসংক্ষেপ", "আপনার বিকেলের সারসংক্ষেপ", "আপনার সন্ধ্যার সারসংক্ষেপ"),
        "ca": ("El teu resum del matí", "El teu resum de la tarda", "El teu resum del vespre"),
        "cs": ("Váš ranní souhrn", "Váš odpolední souhrn", "Váš večerní souhrn"),
        "da": ("Dit morgenresumé", "Dit eftermiddagsresumé", "Dit aftenresumé"),
        "de": ("Deine Zusammenfassung am Morgen", "Deine Zusammenfassung am Nachmittag", "Deine Zusammenfassung am Abend"),
        "el": ("Η πρωινή σας σύνοψη", "Η απογευματινή σας σύνοψη", "Η βραδινή σας σύνοψη"),
        "en": ("Your Morning Summary", "Your Afternoon Summary", "Your Evening Summary"),
        "es": ("Tu resumen de la mañana", "Tu resumen de la tarde", "Tu resumen de la noche"),
        "et": ("Sinu hommikune kokkuvõte", "Sinu pärastlõunane kokkuvõte", "Sinu õhtune kokkuvõte"),
        "fa": ("خلاصهٔ صبحگاهی شما", "خلاصهٔ بعدازظهر شما", "خلاصهٔ شامگاهی شما"),
        "fi": ("Aamun yhteenvetosi", "Iltapäivän yhteenvetosi", "Illan yhteenvetosi"),
        "fr": ("Votre résumé du matin", "Votre résumé de l’après-midi", "Votre résumé du soir"),
        "he": ("סיכום הבוקר שלך", "סיכום הצהריים שלך", "סיכום הערב שלך"),
        "hi": ("आपका सुबह का सारांश", "आपका दोपहर का सारांश", "आपका शाम का सारांश"),
        "hr": ("Vaš jutarnji sažetak", "Vaš poslijepodnevni sažetak", "Vaš večernji sažetak"),
        "hu": ("A reggeli összefoglalód", "A délutáni összefoglalód", "Az esti összefoglalód"),
        "id": ("Ringkasan Pagi Anda", "Ringkasan Sore Anda", "Ringkasan Malam Anda"),
        "is": ("Morgunsamantektin þín", "Síðdegissamantektin þín", "Kvöldsamantektin þín"),
        "it": ("Il tuo riepilogo del mattino", "Il tuo riepilogo del pomeriggio", "Il tuo riepilogo della sera"),
        "ja": ("朝のまとめ", "午後のまとめ", "夜のまとめ"),
        "ko": ("아침 요약", "오후 요약", "저녁 요약"),
        "lt": ("Jūsų rytinė suvestinė", "Jūsų popietinė suvestinė", "Jūsų vakarinė suvestinė"),
        "lv": ("Jūsu rīta kopsavilkums", "Jūsu pēcpusdienas kopsavilkums", "Jūsu vakara kopsavilkums"),
        "ms": ("Ringkasan Pagi Anda", "Ringkasan Petang Anda", "Ringkasan Malam Anda"),
        "nb": ("Morgensammendraget ditt", "Ettermiddagssammendraget ditt", "Kveldssammendraget ditt"),
        "nl": ("Je ochtendoverzicht", "Je middagoverzicht", "Je avondoverzicht"),
        "pl": ("Twoje poranne podsumowanie", "Twoje popołudniowe podsumowanie", "Twoje wieczorne podsumowanie"),
        "pt": ("Seu resumo da manhã", "Seu resumo da tarde", "Seu resumo da noite"),
        "pt-PT": ("O seu resumo da manhã", "O seu resumo da tarde", "O seu resumo da noite"),
        "ro": ("Rezumatul tău de dimineață", "Rezumatul tău de după-amiază", "Rezumatul tău de seară"),
        "ru": ("Ваша утренняя сводка", "Ваша дневная сводка", "Ваша вечерняя сводка"),
        "sk": ("Váš ranný súhrn", "Váš popoludňajší súhrn", "Váš večerný súhrn"),
        "sl": ("Vaš jutranji povzetek", "Vaš popoldanski povzetek", "Vaš večerni povzetek"),
        "sr": ("Ваш јутарњи сажетак", "Ваш поподневни сажетак", "Ваш вечерњи сажетак"),
        "sv": ("Din morgonsammanfattning", "Din eftermiddagssammanfattning", "Din kvällssammanfattning"),
        "th": ("สรุปช่วงเช้าของคุณ", "สรุปช่วงบ่ายของคุณ", "สรุปช่วงเย็นของคุณ"),
        "tr": ("Sabah Özetiniz", "Öğleden Sonra Özetiniz", "Akşam Özetiniz"),
        "uk": ("Ваше ранкове зведення", "Ваше денне зведення", "Ваше вечірнє зведення"),
        "vi": ("Bản tóm tắt buổi sáng của bạn", "Bản tóm tắt buổi chiều của bạn", "Bản tóm tắt buổi tối của bạn"),
        "zh-Hans": ("你的早间摘要", "你的午后摘要", "你的晚间摘要"),
        "zh-Hant": ("你的早晨摘要", "你的午後摘要", "你的晚間摘要"),
    ]

    /// ``translations`` under canonical tags.
    private static let table = Dictionary(translations.map { (LanguageTag($0.key).canonical, $0.value) }, uniquingKeysWith: { first, _ in first })

    /// The title of a summary of `period` in the first of `languages` (or a CLDR parent) that has one, else English.
    static func title(_ period: ScheduledSummary.Period, languages: [String]) -> String {
        var titles = translations["en"]!
        search: for preferred in languages.prefix(PageWords.languagesConsidered) {
            for candidate in LanguageTag(preferred).fallbackChain {
                if let found = table[candidate] {
                    titles = found
                    break search
                }
            }
        }
        switch period {
        case .morning: return titles.morning
        case .afternoon: return titles.afternoon
        case .evening: return titles.evening
        }
    }

    /// The languages it has titles in.
    static var languages: [String] { table.keys.sorted() }
}
