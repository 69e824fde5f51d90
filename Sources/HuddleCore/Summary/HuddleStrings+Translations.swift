import HuddleLocalization

extension HuddleStrings {
    /// Huddle's own strings in every language it ships. Each plural string has a form for every category
    /// the language's CLDR cardinal rules use, and every form prints the number (`%u`), because a
    /// category such as Russian `one` also covers 21, 31…
    static let translations: [String: Strings] = [
        "ar": Strings(
            summary: [
                .zero: "%u إشعار إضافي",
                .one: "%u إشعار إضافي",
                .two: "%u إشعاران إضافيان",
                .few: "%u إشعارات إضافية",
                .many: "%u إشعارًا إضافيًا",
                .other: "%u إشعار إضافي",
            ],
            summaryWithArguments: [
                .zero: "%u إشعار إضافي من %@",
                .one: "%u إشعار إضافي من %@",
                .two: "%u إشعاران إضافيان من %@",
                .few: "%u إشعارات إضافية من %@",
                .many: "%u إشعارًا إضافيًا من %@",
                .other: "%u إشعار إضافي من %@",
            ],
            placeholderSingle: "إشعار",
            placeholder: [
                .zero: "%u إشعار",
                .one: "%u إشعار",
                .two: "%u إشعاران",
                .few: "%u إشعارات",
                .many: "%u إشعارًا",
                .other: "%u إشعار",
            ]),
        "bg": Strings(
            summary: [.one: "Още %u известие", .other: "Още %u известия"],
            summaryWithArguments: [.one: "Още %u известие от %@", .other: "Още %u известия от %@"],
            placeholderSingle: "Известие",
            placeholder: [.one: "%u известие", .other: "%u известия"]),
        "bn": Strings(
            summary: [.one: "আরও %uটি বিজ্ঞপ্তি", .other: "আরও %uটি বিজ্ঞপ্তি"],
            summaryWithArguments: [.one: "%2$@ থেকে আরও %1$uটি বিজ্ঞপ্তি", .other: "%2$@ থেকে আরও %1$uটি বিজ্ঞপ্তি"],
            placeholderSingle: "বিজ্ঞপ্তি",
            placeholder: [.one: "%uটি বিজ্ঞপ্তি", .other: "%uটি বিজ্ঞপ্তি"]),
        "ca": Strings(
            summary: [.one: "%u notificació més", .many: "%u notificacions més", .other: "%u notificacions més"],
            summaryWithArguments: [
                .one: "%u notificació més de %@",
                .many: "%u notificacions més de %@",
                .other: "%u notificacions més de %@",
            ],
            placeholderSingle: "Notificació",
            placeholder: [.one: "%u notificació", .many: "%u notificacions", .other: "%u notificacions"]),
        "cs": Strings(
            summary: [
                .one: "Ještě %u oznámení",
                .few: "Ještě %u oznámení",
                .many: "Ještě %u oznámení",
                .other: "Ještě %u oznámení",
            ],
            summaryWithArguments: [
                .one: "Ještě %u oznámení od %@",
                .few: "Ještě %u oznámení od %@",
                .many: "Ještě %u oznámení od %@",
                .other: "Ještě %u oznámení od %@",
            ],
            placeholderSingle: "Oznámení",
            placeholder: [.one: "%u oznámení", .few: "%u oznámení", .many: "%u oznámení", .other: "%u oznámení"]),
        "da": Strings(
            summary: [.one: "Yderligere %u notifikation", .other: "Yderligere %u notifikationer"],
            summaryWithArguments: [
                .one: "Yderligere %u notifikation fra %@",
                .other: "Yderligere %u notifikationer fra %@",
            ],
            placeholderSingle: "Notifikation",
            placeholder: [.one: "%u notifikation", .other: "%u notifikationer"]),
        "de": Strings(
            summary: [.one: "Noch %u Mitteilung", .other: "Noch %u Mitteilungen"],
            summaryWithArguments: [.one: "Noch %u Mitteilung von %@", .other: "Noch %u Mitteilungen von %@"],
            placeholderSingle: "Mitteilung",
            placeholder: [.one: "%u Mitteilung", .other: "%u Mitteilungen"]),
        "el": Strings(
            summary: [.one: "Ακόμη %u γνωστοποίηση", .other: "Ακόμη %u γνωστοποιήσεις"],
            summaryWithArguments: [.one: "Ακόμη %u γνωστοποίηση από %@", .other: "Ακόμη %u γνωστοποιήσεις από %@"],
            placeholderSingle: "Γνωστοποίηση",
            placeholder: [.one: "%u γνωστοποίηση", .other: "%u γνωστοποιήσεις"]),
        "en": Strings(
            summary: [.one: "%u more notification", .other: "%u more notifications"],
            summaryWithArguments: [.one: "%u more notification from %@", .other: "%u more notifications from %@"],
            placeholderSingle: "Notification",
            placeholder: [.one: "%u Notification", .other: "%u Notifications"],
            count: [.one: "%u notification", .other: "%u notifications"]),
        "es": Strings(
            summary: [.one: "%u notificación más", .many: "%u notificaciones más", .other: "%u notificaciones más"],
            summaryWithArguments: [
                .one: "%u notificación más de %@",
                .many: "%u notificaciones más de %@",
                .other: "%u notificaciones más de %@",
            ],
            placeholderSingle: "Notificación",
            placeholder: [.one: "%u notificación", .many: "%u notificaciones", .other: "%u notificaciones"]),
        "et": Strings(
            summary: [.one: "Veel %u teavitus", .other: "Veel %u teavitust"],
            summaryWithArguments: [.one: "%2$@: veel %1$u teavitus", .other: "%2$@: veel %1$u teavitust"],
            placeholderSingle: "Teavitus",
            placeholder: [.one: "%u teavitus", .other: "%u teavitust"]),
        "fa": Strings(
            summary: [.one: "%u اعلان دیگر", .other: "%u اعلان دیگر"],
            summaryWithArguments: [.one: "%u اعلان دیگر از %@", .other: "%u اعلان دیگر از %@"],
            placeholderSingle: "اعلان",
            placeholder: [.one: "%u اعلان", .other: "%u اعلان"]),
        "fi": Strings(
            summary: [.one: "%u muu ilmoitus", .other: "%u muuta ilmoitusta"],
            summaryWithArguments: [.one: "%u muu ilmoitus lähettäjältä %@", .other: "%u muuta ilmoitusta lähettäjältä %@"],
            placeholderSingle: "Ilmoitus",
            placeholder: [.one: "%u ilmoitus", .other: "%u ilmoitusta"]),
        "fr": Strings(
            summary: [.one: "%u autre notification", .many: "%u autres notifications", .other: "%u autres notifications"],
            summaryWithArguments: [
                .one: "%u autre notification de %@",
                .many: "%u autres notifications de %@",
                .other: "%u autres notifications de %@",
            ],
            placeholderSingle: "Notification",
            placeholder: [.one: "%u notification", .many: "%u notifications", .other: "%u notifications"]),
        "he": Strings(
            summary: [.one: "%u עדכון נוסף", .two: "%u עדכונים נוספים", .other: "%u עדכונים נוספים"],
            summaryWithArguments: [
                .one: "%u עדכון נוסף מאת %@",
                .two: "%u עדכונים נוספים מאת %@",
                .other: "%u עדכונים נוספים מאת %@",
            ],
            placeholderSingle: "עדכון",
            placeholder: [.one: "%u עדכון", .two: "%u עדכונים", .other: "%u עדכונים"]),
        "hi": Strings(
            summary: [.one: "%u और सूचना", .other: "%u और सूचनाएँ"],
            summaryWithArguments: [.one: "%2$@ से %1$u और सूचना", .other: "%2$@ से %1$u और सूचनाएँ"],
            placeholderSingle: "सूचना",
            placeholder: [.one: "%u सूचना", .other: "%u सूचनाएँ"]),
        "hr": Strings(
            summary: [.one: "Još %u obavijest", .few: "Još %u obavijesti", .other: "Još %u obavijesti"],
            summaryWithArguments: [
                .one: "Još %u obavijest od %@",
                .few: "Još %u obavijesti od %@",
                .other: "Još %u obavijesti od %@",
            ],
            placeholderSingle: "Obavijest",
            placeholder: [.one: "%u obavijest", .few: "%u obavijesti", .other: "%u obavijesti"]),
        "hu": Strings(
            summary: [.one: "Még %u értesítés", .other: "Még %u értesítés"],
            summaryWithArguments: [.one: "%2$@: még %1$u értesítés", .other: "%2$@: még %1$u értesítés"],
            placeholderSingle: "Értesítés",
            placeholder: [.one: "%u értesítés", .other: "%u értesítés"]),
        "id": Strings(
            summary: [.other: "%u pemberitahuan lainnya"],
            summaryWithArguments: [.other: "%u pemberitahuan lainnya dari %@"],
            placeholderSingle: "Pemberitahuan",
            placeholder: [.other: "%u pemberitahuan"]),
        "is": Strings(
            summary: [.one: "%u tilkynning í viðbót", .other: "%u tilkynningar í viðbót"],
            summaryWithArguments: [.one: "%u tilkynning í viðbót frá %@", .other: "%u tilkynningar í viðbót frá %@"],
            placeholderSingle: "Tilkynning",
            placeholder: [.one: "%u tilkynning", .other: "%u tilkynningar"]),
        "it": Strings(
            summary: [.one: "%u altra notifica", .many: "%u altre notifiche", .other: "%u altre notifiche"],
            summaryWithArguments: [
                .one: "%u altra notifica da %@",
                .many: "%u altre notifiche da %@",
                .other: "%u altre notifiche da %@",
            ],
            placeholderSingle: "Notifica",
            placeholder: [.one: "%u notifica", .many: "%u notifiche", .other: "%u notifiche"]),
        "ja": Strings(
            summary: [.other: "ほか%u件の通知"],
            summaryWithArguments: [.other: "%2$@からのほか%1$u件の通知"],
            placeholderSingle: "通知",
            placeholder: [.other: "%u件の通知"]),
        "ko": Strings(
            summary: [.other: "알림 %u개 더"],
            summaryWithArguments: [.other: "%2$@의 알림 %1$u개 더"],
            placeholderSingle: "알림",
            placeholder: [.other: "알림 %u개"]),
        "lt": Strings(
            summary: [
                .one: "Dar %u pranešimas",
                .few: "Dar %u pranešimai",
                .many: "Dar %u pranešimo",
                .other: "Dar %u pranešimų",
            ],
            summaryWithArguments: [
                .one: "Dar %u pranešimas nuo %@",
                .few: "Dar %u pranešimai nuo %@",
                .many: "Dar %u pranešimo nuo %@",
                .other: "Dar %u pranešimų nuo %@",
            ],
            placeholderSingle: "Pranešimas",
            placeholder: [.one: "%u pranešimas", .few: "%u pranešimai", .many: "%u pranešimo", .other: "%u pranešimų"]),
        "lv": Strings(
            summary: [.zero: "Vēl %u paziņojumu", .one: "Vēl %u paziņojums", .other: "Vēl %u paziņojumi"],
            summaryWithArguments: [
                .zero: "Vēl %u paziņojumu no %@",
                .one: "Vēl %u paziņojums no %@",
                .other: "Vēl %u paziņojumi no %@",
            ],
            placeholderSingle: "Paziņojums",
            placeholder: [.zero: "%u paziņojumu", .one: "%u paziņojums", .other: "%u paziņojumi"]),
        "ms": Strings(
            summary: [.other: "%u pemberitahuan lagi"],
            summaryWithArguments: [.other: "%u pemberitahuan lagi daripada %@"],
            placeholderSingle: "Pemberitahuan",
            placeholder: [.other: "%u pemberitahuan"]),
        "nb": Strings(
            summary: [.one: "Ytterligere %u varsling", .other: "Ytterligere %u varslinger"],
            summaryWithArguments: [.one: "Ytterligere %u varsling fra %@", .other: "Ytterligere %u varslinger fra %@"],
            placeholderSingle: "Varsling",
            placeholder: [.one: "%u varsling", .other: "%u varslinger"]),
        "nl": Strings(
            summary: [.one: "Nog %u melding", .other: "Nog %u meldingen"],
            summaryWithArguments: [.one: "Nog %u melding van %@", .other: "Nog %u meldingen van %@"],
            placeholderSingle: "Melding",
            placeholder: [.one: "%u melding", .other: "%u meldingen"]),
        "pl": Strings(
            summary: [
                .one: "Jeszcze %u powiadomienie",
                .few: "Jeszcze %u powiadomienia",
                .many: "Jeszcze %u powiadomień",
                .other: "Jeszcze %u powiadomienia",
            ],
            summaryWithArguments: [
                .one: "Jeszcze %u powiadomienie od %@",
                .few: "Jeszcze %u powiadomienia od %@",
                .many: "Jeszcze %u powiadomień od %@",
                .other: "Jeszcze %u powiadomienia od %@",
            ],
            placeholderSingle: "Powiadomienie",
            placeholder: [
                .one: "%u powiadomienie",
                .few: "%u powiadomienia",
                .many: "%u powiadomień",
                .other: "%u powiadomienia",
            ]),
        "pt": Strings(
            summary: [.one: "Mais %u notificação", .many: "Mais %u notificações", .other: "Mais %u notificações"],
            summaryWithArguments: [
                .one: "Mais %u notificação de %@",
                .many: "Mais %u notificações de %@",
                .other: "Mais %u notificações de %@",
            ],
            placeholderSingle: "Notificação",
            placeholder: [.one: "%u notificação", .many: "%u notificações", .other: "%u notificações"]),
        "pt-PT": Strings(
            summary: [.one: "Mais %u notificação", .many: "Mais %u notificações", .other: "Mais %u notificações"],
            summaryWithArguments: [
                .one: "Mais %u notificação de %@",
                .many: "Mais %u notificações de %@",
                .other: "Mais %u notificações de %@",
            ],
            placeholderSingle: "Notificação",
            placeholder: [.one: "%u notificação", .many: "%u notificações", .other: "%u notificações"]),
        "ro": Strings(
            summary: [.one: "Încă %u notificare", .few: "Încă %u notificări", .other: "Încă %u de notificări"],
            summaryWithArguments: [
                .one: "Încă %u notificare de la %@",
                .few: "Încă %u notificări de la %@",
                .other: "Încă %u de notificări de la %@",
            ],
            placeholderSingle: "Notificare",
            placeholder: [.one: "%u notificare", .few: "%u notificări", .other: "%u de notificări"]),
        "ru": Strings(
            summary: [
                .one: "Ещё %u уведомление",
                .few: "Ещё %u уведомления",
                .many: "Ещё %u уведомлений",
                .other: "Ещё %u уведомления",
            ],
            summaryWithArguments: [
                .one: "Ещё %u уведомление от %@",
                .few: "Ещё %u уведомления от %@",
                .many: "Ещё %u уведомлений от %@",
                .other: "Ещё %u уведомления от %@",
            ],
            placeholderSingle: "Уведомление",
            placeholder: [
                .one: "%u уведомление",
                .few: "%u уведомления",
                .many: "%u уведомлений",
                .other: "%u уведомления",
            ]),
        "sk": Strings(
            summary: [
                .one: "Ešte %u hlásenie",
                .few: "Ešte %u hlásenia",
                .many: "Ešte %u hlásenia",
                .other: "Ešte %u hlásení",
            ],
            summaryWithArguments: [
                .one: "Ešte %u hlásenie od %@",
                .few: "Ešte %u hlásenia od %@",
                .many: "Ešte %u hlásenia od %@",
                .other: "Ešte %u hlásení od %@",
            ],
            placeholderSingle: "Hlásenie",
            placeholder: [.one: "%u hlásenie", .few: "%u hlásenia", .many: "%u hlásenia", .other: "%u hlásení"]),
        "sl": Strings(
            summary: [
                .one: "Še %u obvestilo",
                .two: "Še %u obvestili",
                .few: "Še %u obvestila",
                .other: "Še %u obvestil",
            ],
            summaryWithArguments: [
                .one: "Še %u obvestilo od %@",
                .two: "Še %u obvestili od %@",
                .few: "Še %u obvestila od %@",
                .other: "Še %u obvestil od %@",
            ],
            placeholderSingle: "Obvestilo",
            placeholder: [.one: "%u obvestilo", .two: "%u obvestili", .few: "%u obvestila", .other: "%u obvestil"]),
        "sr": Strings(
            summary: [.one: "Још %u обавештење", .few: "Још %u обавештења", .other: "Још %u обавештења"],
            summaryWithArguments: [
                .one: "Још %u обавештење од %@",
                .few: "Још %u обавештења од %@",
                .other: "Још %u обавештења од %@",
            ],
            placeholderSingle: "Обавештење",
            placeholder: [.one: "%u обавештење", .few: "%u обавештења", .other: "%u обавештења"]),
        "sv": Strings(
            summary: [.one: "Ytterligare %u notis", .other: "Ytterligare %u notiser"],
            summaryWithArguments: [.one: "Ytterligare %u notis från %@", .other: "Ytterligare %u notiser från %@"],
            placeholderSingle: "Notis",
            placeholder: [.one: "%u notis", .other: "%u notiser"]),
        "th": Strings(
            summary: [.other: "การแจ้งเตือนอีก %u รายการ"],
            summaryWithArguments: [.other: "การแจ้งเตือนอีก %u รายการจาก %@"],
            placeholderSingle: "การแจ้งเตือน",
            placeholder: [.other: "การแจ้งเตือน %u รายการ"]),
        "tr": Strings(
            summary: [.one: "%u bildirim daha", .other: "%u bildirim daha"],
            summaryWithArguments: [.one: "%2$@: %1$u bildirim daha", .other: "%2$@: %1$u bildirim daha"],
            placeholderSingle: "Bildirim",
            placeholder: [.one: "%u bildirim", .other: "%u bildirim"]),
        "uk": Strings(
            summary: [
                .one: "Ще %u сповіщення",
                .few: "Ще %u сповіщення",
                .many: "Ще %u сповіщень",
                .other: "Ще %u сповіщення",
            ],
            summaryWithArguments: [
                .one: "Ще %u сповіщення від %@",
                .few: "Ще %u сповіщення від %@",
                .many: "Ще %u сповіщень від %@",
                .other: "Ще %u сповіщення від %@",
            ],
            placeholderSingle: "Сповіщення",
            placeholder: [.one: "%u сповіщення", .few: "%u сповіщення", .many: "%u сповіщень", .other: "%u сповіщення"]),
        "vi": Strings(
            // CLDR 49 gives Vietnamese a `one` category (0 and 1); the noun does not change with the number.
            summary: [.one: "%u thông báo khác", .other: "%u thông báo khác"],
            summaryWithArguments: [.one: "%u thông báo khác từ %@", .other: "%u thông báo khác từ %@"],
            placeholderSingle: "Thông báo",
            placeholder: [.one: "%u thông báo", .other: "%u thông báo"]),
        "zh-Hans": Strings(
            summary: [.other: "还有%u条通知"],
            summaryWithArguments: [.other: "还有%u条来自%@的通知"],
            placeholderSingle: "通知",
            placeholder: [.other: "%u条通知"]),
        "zh-Hant": Strings(
            summary: [.other: "還有%u則通知"],
            summaryWithArguments: [.other: "還有%u則來自%@的通知"],
            placeholderSingle: "通知",
            placeholder: [.other: "%u則通知"]),
    ]
}
