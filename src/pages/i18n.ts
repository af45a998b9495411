/**
 * Translations of every customer page, as data: `eng` is the reference that defines the keys,
 * and `translations` must hold every key in every page language, so a missing or misspelt
 * text is a compile error. `{name}` marks a value filled in at render time. Which language a
 * page shows: `pageLanguage` (docs/pages.md "Languages").
 */
import { languageOfTag } from '../ground/language.ts';
import { findCurrency } from '../ground/amount.ts';

export const pageLanguages = ['eng', 'nld', 'deu', 'fra'] as const;
export type PageLanguage = (typeof pageLanguages)[number];

const eng = {
  htmlLang: 'en',
  /** The Intl locale of amounts, numbers and dates on the page. */
  locale: 'en-GB',
  title: 'Pay {merchant}',
  payTo: 'Payment to {merchant}',
  amount: 'Amount',
  description: 'Description',
  testMode: 'Test mode: no money is moved.',
  testModeCard:
    'Test mode: no money is moved. Use a test card number such as 4111 1111 1111 1111 (Visa) or 5555 5555 5555 4444 (Mastercard), any expiry date in the future, any 3-digit security code and any name; the cents of the amount choose the outcome.',
  testModeStoredCard: 'Test mode: no money is moved. The saved card is a test card; the cents of the amount choose the outcome.',
  testModeChoice: 'Test mode: no money is moved. Choose any method; its next page says how to test it.',
  cardDetails: 'Card details',
  cardNumber: 'Card number',
  cardNumberHint: 'The 12 to 19 digits on the front of your card',
  expiry: 'Expiry date',
  expiryHint: 'MM/YY',
  cvc: 'Security code (CVC)',
  cvcHint: '3 digits on the back, or 4 on the front for American Express',
  holderName: 'Name on card',
  brandChoice: 'Pay with',
  brandDetected: 'Card brand: {brand}',
  acceptedCards: 'Accepted cards: {brands}',
  pay: 'Pay {amount}',
  cancel: 'Cancel payment',
  // Vault: enrollment (save a card) and paying with a saved card
  enrollTitle: 'Save your card',
  saveCard: 'Save card',
  storedCard: 'Pay with your saved card',
  enrolled: 'Card saved',
  enrolledDetail: 'Your card is saved with {merchant}.',
  testModeEnrollment: 'Test mode: no card is really saved with a bank. The last two digits of the card number choose the outcome (…11: your bank asks for a code).',
  formErrors: 'Please correct the fields marked below.',
  attemptsLeft: 'Attempts left: {count}.',
  // Field errors
  number_required: 'Enter your card number.',
  number_invalid: 'This card number is not valid. Check the digits.',
  brand_unknown: 'This card brand is not recognised.',
  brand_not_accepted: 'This shop does not accept this card brand.',
  brand_not_preselected: 'This payment can only be paid with {brand}.',
  expiry_required: 'Enter the expiry date.',
  expiry_invalid: 'Enter the expiry date as MM/YY.',
  expiry_past: 'This card has expired.',
  cvc_required: 'Enter the security code.',
  cvc_invalid: 'The security code is {length} digits.',
  name_required: 'Enter the name on the card.',
  name_invalid: 'Enter the name as printed on the card (2 to 45 letters).',
  // Landing page
  chooseMethod: 'How would you like to pay?',
  method_card: 'Card',
  method_walletpay: 'Wallet',
  choose: 'Continue',
  // Wallet (hosted flow)
  walletTitle: 'Pay with your wallet',
  walletPay: 'Pay {amount} with wallet',
  walletTestSheet:
    'Test mode: this button stands in for the wallet sheet. It pays with a test wallet token signed by Kassa’s test certificates; the cents of the amount choose the outcome.',
  walletUnavailable: 'Wallet payments are not available for this payment at the moment. No money has been taken.',
  validUntil: 'This payment link is valid until {time} (UTC).',
  // 3-D Secure
  challengeTitle: 'Confirm the payment with your bank',
  challengeIntro: 'Your bank asks you to confirm this payment. Follow the steps in the window.',
  challengeFrame: 'Your bank’s verification page',
  challengeContinue: 'Continue after confirming with your bank',
  challengePending: 'Your bank has not finished the verification yet. Complete it in the window, then continue.',
  methodTitle: 'Checking your card with your bank',
  methodIntro: 'Your bank is checking this device. This takes a few seconds.',
  methodFrame: 'Your bank’s device check',
  redirectTitle: 'Your bank verifies this payment',
  redirectIntro: 'You will now go to your bank’s page to confirm the payment.',
  redirectContinue: 'Go to my bank',
  elsewhereTitle: 'On to the payment method',
  elsewhereIntro: 'You will now go to the payment method’s page to pay.',
  elsewhereContinue: 'Continue',
  redirecting: 'Redirecting to your bank…',
  // Outcome
  outcome_success: 'Payment successful',
  outcome_failed: 'Payment failed',
  outcome_pending: 'Payment in progress',
  outcome_manualintervention: 'Payment being reviewed',
  outcomeDetail_success: 'Thank you. Your payment of {amount} to {merchant} has been received.',
  outcomeDetail_manualintervention: 'Your payment of {amount} is being reviewed. {merchant} will let you know the outcome; do not pay again.',
  outcomeDetail_pending: 'Your payment is being processed. Please wait a moment and refresh this page.',
  failure_expired: 'The time to pay has run out.',
  failure_cancelled: 'The payment was cancelled.',
  failure_unsufficient_balance: 'The balance was not sufficient.',
  failure_fraud_detected: 'The payment was refused for security reasons.',
  failure_rejected: 'Your bank could not confirm that it was you.',
  failure_card_refused: 'Your card was declined.',
  failure_insufficient_funds: 'There were not enough funds on the card.',
  failure_processing_error: 'The payment could not be processed.',
  returnToShop: 'Return to {merchant}',
  // Errors
  notFoundTitle: 'Payment not found',
  notFound: 'This payment link is not valid. Check the link you were given, or go back to the shop.',
  formExpired: 'This form has expired or was not sent by this page. Please try again.',
  unavailable: 'Card payments are not available for this payment at the moment. No money has been taken.',
  // Simulated issuer (ACS) pages
  acsTitle: 'Demo Bank – confirm your payment',
  acsIntro: 'Confirm the payment of {amount} to {merchant} with the one-time code sent to your phone.',
  acsIntroCard: 'Confirm that {merchant} may save your card, with the one-time code sent to your phone.',
  acsCode: 'One-time code',
  acsTestCode: 'Test mode: the code is {code}. Any other code fails the verification.',
  acsSubmit: 'Confirm',
  acsCancel: 'Cancel',
  acs3ds1Intro: 'Demo Bank (3-D Secure 1) asks you to confirm the payment of {amount} to {merchant}.',
  acsDone: 'Verification finished. You can continue.',
  acsContinue: 'Continue',
  acsUnknown: 'This verification is not known or has already been answered.',
  // Methods paid elsewhere: their names, and the test-mode pages standing in for their steps (docs/payment-methods.md)
  method_ideal: 'iDEAL',
  method_paypal: 'PayPal',
  method_klarna: 'Klarna',
  method_banktransfer: 'Bank transfer',
  sim_notice:
    'Test mode: this page stands in for {method}; no money is moved. Under “{outcome}”, choose what happens: {paid} pays, the other buttons end the payment unpaid or leave it open.',
  sim_outcome: 'Outcome',
  sim_outcome_paid: 'Paid',
  sim_outcome_failed: 'Failed',
  sim_outcome_cancelled: 'Cancelled by the customer',
  sim_outcome_expired: 'Expired',
  sim_outcome_open: 'Still open: back to the shop',
  sim_chooseBank: 'Choose your bank',
  sim_email: 'E-mail address',
  sim_invoice: 'Pay in 30 days. Your order:',
  sim_item: 'Item',
  sim_quantity: 'Quantity',
  sim_transferIntro: 'Transfer {amount} to the account below. The payment is complete when the money arrives, usually within one to three working days.',
  sim_iban: 'IBAN',
  sim_bic: 'BIC',
  sim_beneficiary: 'Beneficiary',
  sim_reference: 'Payment reference',
  sim_transferQuote: 'Quote the payment reference exactly, or the transfer cannot be matched to your order.',
  // Kassa's own address (GET /)
  homeTitle: 'Kassa – payment service',
  homeIntro: 'Kassa is a payment service: shops send their customers here to pay. There is nothing to pay on this page.',
  homeDocs: 'API documentation for developers',
  // Kassa's stand-in for a shop's returnUrl (GET /test/return)
  testReturnTitle: 'Back from the payment page',
  testReturnIntro:
    'Kassa sends the customer to the shop’s returnUrl when the payment page is done, whatever the outcome. This page stands in for that address, for trying Kassa out: a shop shows its own page here.',
  testReturnRead:
    'Kassa adds nothing to the address, so this page does not know the payment. The shop learns the outcome from its webhook, or by reading the payment: GET {api}/transaction?reference=… with the reference from the answer to its payment request.',
};

export type MessageKey = keyof typeof eng;
export type Messages = Record<MessageKey, string>;

const nld = {
  htmlLang: 'nl',
  locale: 'nl-NL',
  title: 'Betalen aan {merchant}',
  payTo: 'Betaling aan {merchant}',
  amount: 'Bedrag',
  description: 'Omschrijving',
  testMode: 'Testmodus: er wordt geen geld verplaatst.',
  testModeCard:
    'Testmodus: er wordt geen geld verplaatst. Gebruik een testkaartnummer zoals 4111 1111 1111 1111 (Visa) of 5555 5555 5555 4444 (Mastercard), een vervaldatum in de toekomst, een willekeurige beveiligingscode van 3 cijfers en een willekeurige naam; de centen van het bedrag bepalen de uitkomst.',
  testModeStoredCard: 'Testmodus: er wordt geen geld verplaatst. De opgeslagen kaart is een testkaart; de centen van het bedrag bepalen de uitkomst.',
  testModeChoice: 'Testmodus: er wordt geen geld verplaatst. Kies een willekeurige betaalmethode; de volgende pagina zegt hoe u die test.',
  cardDetails: 'Kaartgegevens',
  cardNumber: 'Kaartnummer',
  cardNumberHint: 'De 12 tot 19 cijfers op de voorkant van uw kaart',
  expiry: 'Vervaldatum',
  expiryHint: 'MM/JJ',
  cvc: 'Beveiligingscode (CVC)',
  cvcHint: '3 cijfers op de achterkant, of 4 op de voorkant bij American Express',
  holderName: 'Naam op de kaart',
  brandChoice: 'Betalen met',
  brandDetected: 'Kaartmerk: {brand}',
  acceptedCards: 'Geaccepteerde kaarten: {brands}',
  pay: 'Betaal {amount}',
  enrollTitle: 'Uw kaart opslaan',
  saveCard: 'Kaart opslaan',
  storedCard: 'Betalen met uw opgeslagen kaart',
  enrolled: 'Kaart opgeslagen',
  enrolledDetail: 'Uw kaart is opgeslagen bij {merchant}.',
  testModeEnrollment:
    'Testmodus: er wordt echt geen kaart bij een bank opgeslagen. De laatste twee cijfers van het kaartnummer bepalen de uitkomst (…11: uw bank vraagt om een code).',
  cancel: 'Betaling annuleren',
  formErrors: 'Verbeter de hieronder gemarkeerde velden.',
  attemptsLeft: 'Resterende pogingen: {count}.',
  number_required: 'Vul uw kaartnummer in.',
  number_invalid: 'Dit kaartnummer is niet geldig. Controleer de cijfers.',
  brand_unknown: 'Dit kaartmerk wordt niet herkend.',
  brand_not_accepted: 'Deze winkel accepteert dit kaartmerk niet.',
  brand_not_preselected: 'Deze betaling kan alleen met {brand} worden betaald.',
  expiry_required: 'Vul de vervaldatum in.',
  expiry_invalid: 'Vul de vervaldatum in als MM/JJ.',
  expiry_past: 'Deze kaart is verlopen.',
  cvc_required: 'Vul de beveiligingscode in.',
  cvc_invalid: 'De beveiligingscode heeft {length} cijfers.',
  name_required: 'Vul de naam op de kaart in.',
  name_invalid: 'Vul de naam in zoals die op de kaart staat (2 tot 45 letters).',
  chooseMethod: 'Hoe wilt u betalen?',
  method_card: 'Kaart',
  method_walletpay: 'Wallet',
  choose: 'Verder',
  walletTitle: 'Betalen met je wallet',
  walletPay: '{amount} betalen met wallet',
  walletTestSheet:
    'Testmodus: deze knop staat voor het wallet-venster. Er wordt betaald met een test-wallettoken, ondertekend met de testcertificaten van Kassa; de centen van het bedrag bepalen de uitkomst.',
  walletUnavailable: 'Walletbetalingen zijn voor deze betaling op dit moment niet beschikbaar. Er is geen geld afgeschreven.',
  validUntil: 'Deze betaallink is geldig tot {time} (UTC).',
  challengeTitle: 'Bevestig de betaling bij uw bank',
  challengeIntro: 'Uw bank vraagt u deze betaling te bevestigen. Volg de stappen in het venster.',
  challengeFrame: 'Verificatiepagina van uw bank',
  challengeContinue: 'Verder na bevestiging bij uw bank',
  challengePending: 'Uw bank heeft de verificatie nog niet afgerond. Rond die af in het venster en ga dan verder.',
  methodTitle: 'Uw kaart wordt gecontroleerd bij uw bank',
  methodIntro: 'Uw bank controleert dit apparaat. Dit duurt enkele seconden.',
  methodFrame: 'Apparaatcontrole van uw bank',
  redirectTitle: 'Uw bank controleert deze betaling',
  redirectIntro: 'U gaat nu naar de pagina van uw bank om de betaling te bevestigen.',
  redirectContinue: 'Naar mijn bank',
  elsewhereTitle: 'Door naar de betaalmethode',
  elsewhereIntro: 'U gaat nu naar de pagina van de betaalmethode om te betalen.',
  elsewhereContinue: 'Verder',
  redirecting: 'U wordt doorgestuurd naar uw bank…',
  outcome_success: 'Betaling geslaagd',
  outcome_failed: 'Betaling mislukt',
  outcome_pending: 'Betaling wordt verwerkt',
  outcome_manualintervention: 'Betaling wordt gecontroleerd',
  outcomeDetail_success: 'Dank u wel. Uw betaling van {amount} aan {merchant} is ontvangen.',
  outcomeDetail_manualintervention: 'Uw betaling van {amount} wordt gecontroleerd. {merchant} laat u de uitkomst weten; betaal niet opnieuw.',
  outcomeDetail_pending: 'Uw betaling wordt verwerkt. Wacht even en vernieuw deze pagina.',
  failure_expired: 'De tijd om te betalen is verlopen.',
  failure_cancelled: 'De betaling is geannuleerd.',
  failure_unsufficient_balance: 'Het saldo was niet toereikend.',
  failure_fraud_detected: 'De betaling is om veiligheidsredenen geweigerd.',
  failure_rejected: 'Uw bank kon niet bevestigen dat u het was.',
  failure_card_refused: 'Uw kaart is geweigerd.',
  failure_insufficient_funds: 'Er stond niet genoeg saldo op de kaart.',
  failure_processing_error: 'De betaling kon niet worden verwerkt.',
  returnToShop: 'Terug naar {merchant}',
  notFoundTitle: 'Betaling niet gevonden',
  notFound: 'Deze betaallink is niet geldig. Controleer de link die u kreeg, of ga terug naar de winkel.',
  formExpired: 'Dit formulier is verlopen of niet door deze pagina verstuurd. Probeer het opnieuw.',
  unavailable: 'Kaartbetalingen zijn voor deze betaling op dit moment niet beschikbaar. Er is geen geld afgeschreven.',
  acsTitle: 'Demo Bank – bevestig uw betaling',
  acsIntro: 'Bevestig de betaling van {amount} aan {merchant} met de eenmalige code die naar uw telefoon is gestuurd.',
  acsIntroCard: 'Bevestig met de eenmalige code die naar uw telefoon is gestuurd dat {merchant} uw kaart mag bewaren.',
  acsCode: 'Eenmalige code',
  acsTestCode: 'Testmodus: de code is {code}. Elke andere code laat de verificatie mislukken.',
  acsSubmit: 'Bevestigen',
  acsCancel: 'Annuleren',
  acs3ds1Intro: 'Demo Bank (3-D Secure 1) vraagt u de betaling van {amount} aan {merchant} te bevestigen.',
  acsDone: 'Verificatie afgerond. U kunt verder.',
  acsContinue: 'Verder',
  acsUnknown: 'Deze verificatie is onbekend of al beantwoord.',
  method_ideal: 'iDEAL',
  method_paypal: 'PayPal',
  method_klarna: 'Klarna',
  method_banktransfer: 'Overboeking',
  sim_notice:
    'Testmodus: deze pagina staat voor {method}; er wordt geen geld verplaatst. Kies onder “{outcome}” wat er gebeurt: {paid} betaalt, de andere knoppen beëindigen de betaling onbetaald of laten haar openstaan.',
  sim_outcome: 'Uitkomst',
  sim_outcome_paid: 'Betaald',
  sim_outcome_failed: 'Mislukt',
  sim_outcome_cancelled: 'Geannuleerd door de klant',
  sim_outcome_expired: 'Verlopen',
  sim_outcome_open: 'Nog open: terug naar de winkel',
  sim_chooseBank: 'Kies uw bank',
  sim_email: 'E-mailadres',
  sim_invoice: 'Betaal binnen 30 dagen. Uw bestelling:',
  sim_item: 'Artikel',
  sim_quantity: 'Aantal',
  sim_transferIntro: 'Maak {amount} over naar de rekening hieronder. De betaling is voltooid zodra het geld binnen is, meestal binnen één tot drie werkdagen.',
  sim_iban: 'IBAN',
  sim_bic: 'BIC',
  sim_beneficiary: 'Begunstigde',
  sim_reference: 'Betalingskenmerk',
  sim_transferQuote: 'Vermeld het betalingskenmerk precies zo, anders kan de overboeking niet aan uw bestelling worden gekoppeld.',
  homeTitle: 'Kassa – betaaldienst',
  homeIntro: 'Kassa is een betaaldienst: webwinkels sturen hun klanten hierheen om te betalen. Op deze pagina valt niets te betalen.',
  homeDocs: 'API-documentatie voor ontwikkelaars',
  // Kassa's stand-in for a shop's returnUrl (GET /test/return)
  testReturnTitle: 'Terug van de betaalpagina',
  testReturnIntro:
    'Kassa stuurt de klant naar de returnUrl van de webwinkel zodra de betaalpagina klaar is, wat de uitkomst ook is. Deze pagina staat voor dat adres, om Kassa uit te proberen: een webwinkel toont hier zijn eigen pagina.',
  testReturnRead:
    'Kassa voegt niets aan het adres toe, dus deze pagina kent de betaling niet. De webwinkel hoort de uitkomst via zijn webhook, of leest de betaling: GET {api}/transaction?reference=… met de reference uit het antwoord op zijn betaalverzoek.',
} satisfies Messages;

const deu = {
  htmlLang: 'de',
  locale: 'de-DE',
  title: 'An {merchant} bezahlen',
  payTo: 'Zahlung an {merchant}',
  amount: 'Betrag',
  description: 'Beschreibung',
  testMode: 'Testmodus: Es wird kein Geld bewegt.',
  testModeCard:
    'Testmodus: Es wird kein Geld bewegt. Verwenden Sie eine Testkartennummer wie 4111 1111 1111 1111 (Visa) oder 5555 5555 5555 4444 (Mastercard), ein beliebiges Ablaufdatum in der Zukunft, einen beliebigen dreistelligen Sicherheitscode und einen beliebigen Namen; die Cent-Stellen des Betrags bestimmen das Ergebnis.',
  testModeStoredCard: 'Testmodus: Es wird kein Geld bewegt. Die gespeicherte Karte ist eine Testkarte; die Cent-Stellen des Betrags bestimmen das Ergebnis.',
  testModeChoice: 'Testmodus: Es wird kein Geld bewegt. Wählen Sie eine beliebige Zahlungsart; die nächste Seite sagt, wie Sie sie testen.',
  cardDetails: 'Kartendaten',
  cardNumber: 'Kartennummer',
  cardNumberHint: 'Die 12 bis 19 Ziffern auf der Vorderseite Ihrer Karte',
  expiry: 'Ablaufdatum',
  expiryHint: 'MM/JJ',
  cvc: 'Sicherheitscode (CVC)',
  cvcHint: '3 Ziffern auf der Rückseite, bei American Express 4 auf der Vorderseite',
  holderName: 'Name auf der Karte',
  brandChoice: 'Bezahlen mit',
  brandDetected: 'Kartenmarke: {brand}',
  acceptedCards: 'Akzeptierte Karten: {brands}',
  pay: '{amount} bezahlen',
  cancel: 'Zahlung abbrechen',
  enrollTitle: 'Ihre Karte speichern',
  saveCard: 'Karte speichern',
  storedCard: 'Mit Ihrer gespeicherten Karte bezahlen',
  enrolled: 'Karte gespeichert',
  enrolledDetail: 'Ihre Karte ist bei {merchant} gespeichert.',
  testModeEnrollment:
    'Testmodus: Es wird keine Karte wirklich bei einer Bank gespeichert. Die letzten zwei Ziffern der Kartennummer bestimmen das Ergebnis (…11: Ihre Bank fragt nach einem Code).',
  formErrors: 'Bitte korrigieren Sie die unten markierten Felder.',
  attemptsLeft: 'Verbleibende Versuche: {count}.',
  number_required: 'Geben Sie Ihre Kartennummer ein.',
  number_invalid: 'Diese Kartennummer ist ungültig. Bitte prüfen Sie die Ziffern.',
  brand_unknown: 'Diese Kartenmarke wird nicht erkannt.',
  brand_not_accepted: 'Dieser Shop akzeptiert diese Kartenmarke nicht.',
  brand_not_preselected: 'Diese Zahlung ist nur mit {brand} möglich.',
  expiry_required: 'Geben Sie das Ablaufdatum ein.',
  expiry_invalid: 'Geben Sie das Ablaufdatum im Format MM/JJ ein.',
  expiry_past: 'Diese Karte ist abgelaufen.',
  cvc_required: 'Geben Sie den Sicherheitscode ein.',
  cvc_invalid: 'Der Sicherheitscode hat {length} Ziffern.',
  name_required: 'Geben Sie den Namen auf der Karte ein.',
  name_invalid: 'Geben Sie den Namen so ein, wie er auf der Karte steht (2 bis 45 Buchstaben).',
  chooseMethod: 'Wie möchten Sie bezahlen?',
  method_card: 'Karte',
  method_walletpay: 'Wallet',
  choose: 'Weiter',
  walletTitle: 'Mit Ihrer Wallet bezahlen',
  walletPay: '{amount} mit Wallet bezahlen',
  walletTestSheet:
    'Testmodus: Diese Schaltfläche steht für das Wallet-Fenster. Bezahlt wird mit einem Test-Wallet-Token, signiert mit den Testzertifikaten von Kassa; die Cent-Stellen des Betrags bestimmen das Ergebnis.',
  walletUnavailable: 'Wallet-Zahlungen sind für diese Zahlung derzeit nicht verfügbar. Es wurde kein Geld abgebucht.',
  validUntil: 'Dieser Zahlungslink ist gültig bis {time} (UTC).',
  challengeTitle: 'Bestätigen Sie die Zahlung bei Ihrer Bank',
  challengeIntro: 'Ihre Bank bittet Sie, diese Zahlung zu bestätigen. Folgen Sie den Schritten im Fenster.',
  challengeFrame: 'Bestätigungsseite Ihrer Bank',
  challengeContinue: 'Nach der Bestätigung bei Ihrer Bank fortfahren',
  challengePending: 'Ihre Bank hat die Prüfung noch nicht abgeschlossen. Schließen Sie sie im Fenster ab und fahren Sie dann fort.',
  methodTitle: 'Ihre Karte wird bei Ihrer Bank geprüft',
  methodIntro: 'Ihre Bank prüft dieses Gerät. Das dauert einige Sekunden.',
  methodFrame: 'Geräteprüfung Ihrer Bank',
  redirectTitle: 'Ihre Bank prüft diese Zahlung',
  redirectIntro: 'Sie werden jetzt zur Seite Ihrer Bank weitergeleitet, um die Zahlung zu bestätigen.',
  redirectContinue: 'Weiter zu meiner Bank',
  elsewhereTitle: 'Weiter zur Zahlungsmethode',
  elsewhereIntro: 'Sie werden jetzt zur Seite der Zahlungsmethode weitergeleitet, um zu bezahlen.',
  elsewhereContinue: 'Weiter',
  redirecting: 'Weiterleitung zu Ihrer Bank…',
  outcome_success: 'Zahlung erfolgreich',
  outcome_failed: 'Zahlung fehlgeschlagen',
  outcome_pending: 'Zahlung in Bearbeitung',
  outcome_manualintervention: 'Zahlung wird geprüft',
  outcomeDetail_success: 'Vielen Dank. Ihre Zahlung von {amount} an {merchant} ist eingegangen.',
  outcomeDetail_manualintervention: 'Ihre Zahlung von {amount} wird geprüft. {merchant} teilt Ihnen das Ergebnis mit; bitte zahlen Sie nicht erneut.',
  outcomeDetail_pending: 'Ihre Zahlung wird verarbeitet. Bitte warten Sie einen Moment und laden Sie diese Seite dann neu.',
  failure_expired: 'Die Zeit zum Bezahlen ist abgelaufen.',
  failure_cancelled: 'Die Zahlung wurde abgebrochen.',
  failure_unsufficient_balance: 'Das Guthaben reichte nicht aus.',
  failure_fraud_detected: 'Die Zahlung wurde aus Sicherheitsgründen abgelehnt.',
  failure_rejected: 'Ihre Bank konnte nicht bestätigen, dass Sie es waren.',
  failure_card_refused: 'Ihre Karte wurde abgelehnt.',
  failure_insufficient_funds: 'Die Karte war nicht ausreichend gedeckt.',
  failure_processing_error: 'Die Zahlung konnte nicht verarbeitet werden.',
  returnToShop: 'Zurück zu {merchant}',
  notFoundTitle: 'Zahlung nicht gefunden',
  notFound: 'Dieser Zahlungslink ist ungültig. Prüfen Sie den Link, den Sie erhalten haben, oder kehren Sie zum Shop zurück.',
  formExpired: 'Dieses Formular ist abgelaufen oder wurde nicht von dieser Seite gesendet. Bitte versuchen Sie es erneut.',
  unavailable: 'Kartenzahlungen sind für diese Zahlung derzeit nicht verfügbar. Es wurde kein Geld abgebucht.',
  acsTitle: 'Demo Bank – Zahlung bestätigen',
  acsIntro: 'Bestätigen Sie die Zahlung von {amount} an {merchant} mit dem Einmalcode, der an Ihr Telefon gesendet wurde.',
  acsIntroCard: 'Bestätigen Sie mit dem Einmalcode, der an Ihr Telefon gesendet wurde, dass {merchant} Ihre Karte speichern darf.',
  acsCode: 'Einmalcode',
  acsTestCode: 'Testmodus: Der Code lautet {code}. Mit jedem anderen Code schlägt die Prüfung fehl.',
  acsSubmit: 'Bestätigen',
  acsCancel: 'Abbrechen',
  acs3ds1Intro: 'Demo Bank (3-D Secure 1) bittet Sie, die Zahlung von {amount} an {merchant} zu bestätigen.',
  acsDone: 'Prüfung abgeschlossen. Sie können fortfahren.',
  acsContinue: 'Weiter',
  acsUnknown: 'Diese Prüfung ist unbekannt oder wurde bereits beantwortet.',
  method_ideal: 'iDEAL',
  method_paypal: 'PayPal',
  method_klarna: 'Klarna',
  method_banktransfer: 'Überweisung',
  sim_notice:
    'Testmodus: Diese Seite steht für {method}; es wird kein Geld bewegt. Wählen Sie unter „{outcome}“, was geschieht: {paid} bezahlt, die anderen Schaltflächen beenden die Zahlung unbezahlt oder lassen sie offen.',
  sim_outcome: 'Ergebnis',
  sim_outcome_paid: 'Bezahlt',
  sim_outcome_failed: 'Fehlgeschlagen',
  sim_outcome_cancelled: 'Vom Kunden abgebrochen',
  sim_outcome_expired: 'Abgelaufen',
  sim_outcome_open: 'Noch offen: zurück zum Shop',
  sim_chooseBank: 'Wählen Sie Ihre Bank',
  sim_email: 'E-Mail-Adresse',
  sim_invoice: 'Zahlung innerhalb von 30 Tagen. Ihre Bestellung:',
  sim_item: 'Artikel',
  sim_quantity: 'Menge',
  sim_transferIntro:
    'Überweisen Sie {amount} auf das unten stehende Konto. Die Zahlung ist abgeschlossen, sobald das Geld eingegangen ist, meist innerhalb von ein bis drei Werktagen.',
  sim_iban: 'IBAN',
  sim_bic: 'BIC',
  sim_beneficiary: 'Empfänger',
  sim_reference: 'Verwendungszweck',
  sim_transferQuote: 'Geben Sie den Verwendungszweck genau so an, sonst kann die Überweisung Ihrer Bestellung nicht zugeordnet werden.',
  homeTitle: 'Kassa – Zahlungsdienst',
  homeIntro: 'Kassa ist ein Zahlungsdienst: Shops leiten ihre Kundinnen und Kunden zum Bezahlen hierher. Auf dieser Seite ist nichts zu bezahlen.',
  homeDocs: 'API-Dokumentation für Entwickler',
  // Kassa's stand-in for a shop's returnUrl (GET /test/return)
  testReturnTitle: 'Zurück von der Zahlungsseite',
  testReturnIntro:
    'Kassa schickt die Kundin oder den Kunden zur returnUrl des Shops, sobald die Zahlungsseite fertig ist, wie auch immer sie ausgeht. Diese Seite steht für diese Adresse, um Kassa auszuprobieren: Ein Shop zeigt hier seine eigene Seite.',
  testReturnRead:
    'Kassa fügt der Adresse nichts hinzu, daher kennt diese Seite die Zahlung nicht. Der Shop erfährt das Ergebnis über seinen Webhook oder liest die Zahlung: GET {api}/transaction?reference=… mit der reference aus der Antwort auf seine Zahlungsanfrage.',
} satisfies Messages;

// French puts a no-break space before ':', ';' and '?', so the sign never starts a line.
const fra = {
  htmlLang: 'fr',
  locale: 'fr-FR',
  title: 'Payer {merchant}',
  payTo: 'Paiement à {merchant}',
  amount: 'Montant',
  description: 'Description',
  testMode: 'Mode test : aucun argent n’est débité.',
  testModeCard:
    'Mode test : aucun argent n’est débité. Utilisez un numéro de carte de test comme 4111 1111 1111 1111 (Visa) ou 5555 5555 5555 4444 (Mastercard), une date d’expiration future quelconque, un code de sécurité quelconque à 3 chiffres et un nom quelconque ; les centimes du montant déterminent le résultat.',
  testModeStoredCard: 'Mode test : aucun argent n’est débité. La carte enregistrée est une carte de test ; les centimes du montant déterminent le résultat.',
  testModeChoice: 'Mode test : aucun argent n’est débité. Choisissez n’importe quel moyen de paiement ; la page suivante indique comment le tester.',
  cardDetails: 'Informations de la carte',
  cardNumber: 'Numéro de carte',
  cardNumberHint: 'Les 12 à 19 chiffres au recto de votre carte',
  expiry: 'Date d’expiration',
  expiryHint: 'MM/AA',
  cvc: 'Code de sécurité (CVC)',
  cvcHint: '3 chiffres au verso, ou 4 au recto pour American Express',
  holderName: 'Nom sur la carte',
  brandChoice: 'Payer avec',
  brandDetected: 'Type de carte : {brand}',
  acceptedCards: 'Cartes acceptées : {brands}',
  pay: 'Payer {amount}',
  cancel: 'Annuler le paiement',
  enrollTitle: 'Enregistrer votre carte',
  saveCard: 'Enregistrer la carte',
  storedCard: 'Payer avec votre carte enregistrée',
  enrolled: 'Carte enregistrée',
  enrolledDetail: 'Votre carte est enregistrée auprès de {merchant}.',
  testModeEnrollment:
    'Mode test : aucune carte n’est réellement enregistrée auprès d’une banque. Les deux derniers chiffres du numéro de carte déterminent le résultat (…11 : votre banque demande un code).',
  formErrors: 'Veuillez corriger les champs signalés ci-dessous.',
  attemptsLeft: 'Tentatives restantes : {count}.',
  number_required: 'Saisissez votre numéro de carte.',
  number_invalid: 'Ce numéro de carte n’est pas valide. Vérifiez les chiffres.',
  brand_unknown: 'Ce type de carte n’est pas reconnu.',
  brand_not_accepted: 'Cette boutique n’accepte pas ce type de carte.',
  brand_not_preselected: 'Ce paiement ne peut être réglé qu’avec {brand}.',
  expiry_required: 'Saisissez la date d’expiration.',
  expiry_invalid: 'Saisissez la date d’expiration au format MM/AA.',
  expiry_past: 'Cette carte a expiré.',
  cvc_required: 'Saisissez le code de sécurité.',
  cvc_invalid: 'Le code de sécurité comporte {length} chiffres.',
  name_required: 'Saisissez le nom figurant sur la carte.',
  name_invalid: 'Saisissez le nom tel qu’il figure sur la carte (2 à 45 lettres).',
  chooseMethod: 'Comment souhaitez-vous payer ?',
  method_card: 'Carte',
  method_walletpay: 'Portefeuille numérique',
  choose: 'Continuer',
  walletTitle: 'Payer avec votre portefeuille numérique',
  walletPay: 'Payer {amount} avec le portefeuille',
  walletTestSheet:
    'Mode test : ce bouton remplace la fenêtre du portefeuille. Il paie avec un jeton de portefeuille de test signé par les certificats de test de Kassa ; les centimes du montant déterminent le résultat.',
  walletUnavailable: 'Les paiements par portefeuille numérique ne sont pas disponibles pour ce paiement pour le moment. Aucun montant n’a été débité.',
  validUntil: 'Ce lien de paiement est valable jusqu’au {time} (UTC).',
  challengeTitle: 'Confirmez le paiement auprès de votre banque',
  challengeIntro: 'Votre banque vous demande de confirmer ce paiement. Suivez les étapes dans la fenêtre.',
  challengeFrame: 'Page de vérification de votre banque',
  challengeContinue: 'Continuer après confirmation auprès de votre banque',
  challengePending: 'Votre banque n’a pas encore terminé la vérification. Terminez-la dans la fenêtre, puis continuez.',
  methodTitle: 'Vérification de votre carte auprès de votre banque',
  methodIntro: 'Votre banque vérifie cet appareil. Cela prend quelques secondes.',
  methodFrame: 'Vérification de l’appareil par votre banque',
  redirectTitle: 'Votre banque vérifie ce paiement',
  redirectIntro: 'Vous allez maintenant accéder à la page de votre banque pour confirmer le paiement.',
  redirectContinue: 'Aller à ma banque',
  elsewhereTitle: 'Vers le moyen de paiement',
  elsewhereIntro: 'Vous allez maintenant être redirigé vers la page du moyen de paiement pour payer.',
  elsewhereContinue: 'Continuer',
  redirecting: 'Redirection vers votre banque…',
  outcome_success: 'Paiement réussi',
  outcome_failed: 'Échec du paiement',
  outcome_pending: 'Paiement en cours',
  outcome_manualintervention: 'Paiement en cours de vérification',
  outcomeDetail_success: 'Merci. Votre paiement de {amount} à {merchant} a bien été reçu.',
  outcomeDetail_manualintervention: 'Votre paiement de {amount} est en cours de vérification. {merchant} vous informera du résultat ; ne payez pas une seconde fois.',
  outcomeDetail_pending: 'Votre paiement est en cours de traitement. Veuillez patienter un instant, puis actualiser cette page.',
  failure_expired: 'Le délai de paiement est écoulé.',
  failure_cancelled: 'Le paiement a été annulé.',
  failure_unsufficient_balance: 'Le solde était insuffisant.',
  failure_fraud_detected: 'Le paiement a été refusé pour des raisons de sécurité.',
  failure_rejected: 'Votre banque n’a pas pu confirmer votre identité.',
  failure_card_refused: 'Votre carte a été refusée.',
  failure_insufficient_funds: 'Le solde de la carte était insuffisant.',
  failure_processing_error: 'Le paiement n’a pas pu être traité.',
  returnToShop: 'Retour à {merchant}',
  notFoundTitle: 'Paiement introuvable',
  notFound: 'Ce lien de paiement n’est pas valide. Vérifiez le lien que vous avez reçu ou retournez à la boutique.',
  formExpired: 'Ce formulaire a expiré ou n’a pas été envoyé depuis cette page. Veuillez réessayer.',
  unavailable: 'Les paiements par carte ne sont pas disponibles pour ce paiement pour le moment. Aucun montant n’a été débité.',
  acsTitle: 'Demo Bank – confirmez votre paiement',
  acsIntro: 'Confirmez le paiement de {amount} à {merchant} avec le code à usage unique envoyé sur votre téléphone.',
  acsIntroCard: 'Confirmez avec le code à usage unique envoyé sur votre téléphone que {merchant} peut enregistrer votre carte.',
  acsCode: 'Code à usage unique',
  acsTestCode: 'Mode test : le code est {code}. Tout autre code fait échouer la vérification.',
  acsSubmit: 'Confirmer',
  acsCancel: 'Annuler',
  acs3ds1Intro: 'Demo Bank (3-D Secure 1) vous demande de confirmer le paiement de {amount} à {merchant}.',
  acsDone: 'Vérification terminée. Vous pouvez continuer.',
  acsContinue: 'Continuer',
  acsUnknown: 'Cette vérification est inconnue ou a déjà reçu une réponse.',
  method_ideal: 'iDEAL',
  method_paypal: 'PayPal',
  method_klarna: 'Klarna',
  method_banktransfer: 'Virement bancaire',
  sim_notice:
    'Mode test : cette page remplace {method} ; aucun argent n’est débité. Choisissez sous « {outcome} » ce qui se passe : {paid} paie, les autres boutons terminent le paiement sans paiement ou le laissent en attente.',
  sim_outcome: 'Résultat',
  sim_outcome_paid: 'Payé',
  sim_outcome_failed: 'Échoué',
  sim_outcome_cancelled: 'Annulé par le client',
  sim_outcome_expired: 'Expiré',
  sim_outcome_open: 'Toujours en attente : retour à la boutique',
  sim_chooseBank: 'Choisissez votre banque',
  sim_email: 'Adresse e-mail',
  sim_invoice: 'Payez sous 30 jours. Votre commande :',
  sim_item: 'Article',
  sim_quantity: 'Quantité',
  sim_transferIntro: 'Virez {amount} sur le compte ci-dessous. Le paiement est terminé dès réception des fonds, en général sous un à trois jours ouvrés.',
  sim_iban: 'IBAN',
  sim_bic: 'BIC',
  sim_beneficiary: 'Bénéficiaire',
  sim_reference: 'Référence du paiement',
  sim_transferQuote: 'Indiquez exactement la référence du paiement, sinon le virement ne pourra pas être rattaché à votre commande.',
  homeTitle: 'Kassa – service de paiement',
  homeIntro: 'Kassa est un service de paiement : les boutiques y envoient leurs clients pour payer. Il n’y a rien à payer sur cette page.',
  homeDocs: 'Documentation de l’API pour les développeurs',
  // Kassa's stand-in for a shop's returnUrl (GET /test/return)
  testReturnTitle: 'Retour de la page de paiement',
  testReturnIntro:
    'Kassa renvoie le client vers la returnUrl de la boutique une fois la page de paiement terminée, quel que soit le résultat. Cette page remplace cette adresse pour essayer Kassa : une boutique affiche ici sa propre page.',
  testReturnRead:
    'Kassa n’ajoute rien à l’adresse : cette page ne connaît donc pas le paiement. La boutique apprend le résultat par son webhook, ou en lisant le paiement : GET {api}/transaction?reference=… avec la reference de la réponse à sa demande de paiement.',
} satisfies Messages;

export const translations = { eng, nld, deu, fra } satisfies Record<PageLanguage, Messages>;

const isPageLanguage = (code: string | undefined): code is PageLanguage => (pageLanguages as readonly string[]).includes(code ?? '');

/** An Accept-Language header's languages, the most preferred first (RFC 9110 §12.5.4: q=0 means "not acceptable"). */
function acceptedLanguages(header: string | undefined): string[] {
  return (header ?? '')
    .split(',')
    .map((part, index) => {
      const [tag, ...parameters] = part.trim().split(';');
      const q = parameters.map((p) => /^\s*q=([0-9.]+)\s*$/i.exec(p)?.[1]).find(Boolean);
      return { tag: tag.trim(), q: q === undefined ? 1 : Number(q), index };
    })
    .filter((entry) => entry.tag && entry.q > 0)
    .sort((a, b) => b.q - a.q || a.index - b.index)
    .map((entry) => entry.tag);
}

/**
 * The page's language: the payment's `language` when a page exists in it, else the first of
 * the browser's Accept-Language that has one, else English (docs/pages.md "Languages").
 */
export function pageLanguage(paymentLanguage: string | undefined, acceptLanguage: string | undefined): PageLanguage {
  if (isPageLanguage(paymentLanguage)) return paymentLanguage;
  return acceptedLanguages(acceptLanguage).map(languageOfTag).find(isPageLanguage) ?? 'eng';
}

export type Translate = (key: MessageKey, values?: Record<string, string | number>) => string;

/** The translator of a page language; any other code (an issuer page's browser language) falls back to `eng`. */
export function translator(language: string): Translate {
  const messages: Messages = isPageLanguage(language) ? translations[language] : eng;
  return (key, values = {}) => messages[key].replace(/\{(\w+)\}/g, (whole, name: string) => (name in values ? String(values[name]) : whole));
}

/**
 * An amount in major units as given (a line's `totalPrice`, the issuer's purchase amount: a JSON
 * number or decimal text) in the currency, as the page's language writes it; the text as it is
 * when Intl cannot (an unknown currency code).
 */
export function moneyText(t: Translate, major: number | string, currency: string): string {
  const text = String(major).trim();
  // The currency's own decimals (ISO 4217), as the page's amount has them: 30 → €30.00.
  const digits = findCurrency(currency)?.exponent ?? text.split('.')[1]?.length ?? 0;
  try {
    return new Intl.NumberFormat(t('locale'), {
      style: 'currency',
      currency: currency.toUpperCase(),
      minimumFractionDigits: digits,
      maximumFractionDigits: digits,
    }).format(Number(text));
  } catch {
    return `${text} ${currency.toUpperCase()}`;
  }
}

/** A count as the page's language writes it. */
export const formatNumber = (t: Translate, value: number) => new Intl.NumberFormat(t('locale')).format(value);

/** A moment as the page's language writes it, in UTC (the page says so: a customer's own time zone is unknown without scripts). */
export const formatDateTime = (t: Translate, at: Date | number) =>
  new Intl.DateTimeFormat(t('locale'), { dateStyle: 'long', timeStyle: 'short', timeZone: 'UTC' }).format(at);

/** `{name}` placeholders of a message, for the completeness test. */
export const placeholders = (message: string) => [...message.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();
