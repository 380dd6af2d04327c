#include "gui/evaluation/inference_tab.h"

#include <QDir>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QImageReader>
#include <QLabel>
#include <QLocale>
#include <QMimeData>
#include <QPainter>
#include <QPushButton>
#include <QRegularExpression>
#include <QStackedWidget>
#include <QStyledItemDelegate>
#include <QTableWidget>
#include <QVBoxLayout>

#include "gui/run/cli_command.h"

namespace netsmith::gui {

namespace {

constexpr int kInferTimeoutMs = 10 * 60 * 1000;
constexpr int kBarRowHeight = 20;
const QStringList kImageFilters{QStringLiteral("*.png"), QStringLiteral("*.jpg"), QStringLiteral("*.jpeg"),
                                QStringLiteral("*.jpe"), QStringLiteral("*.jfif")};

// The classes cell: what it holds, in Qt::UserRole, for the delegate to draw.
enum Role { BarsRole = Qt::UserRole + 1, ErrorRole, PendingRole };

QString likelihoodPercent(double p) { return QLocale().toString(100 * p, 'f', 1) + QLatin1Char('%'); }

// A thumbnail of at most kThumbnail pixels; small images (an 8x8 or 28x28 dataset image) are
// enlarged without smoothing, so their pixels stay visible. Null when Qt cannot read the file.
QPixmap thumbnailOf(const QString& file) {
  QImageReader reader(file);
  reader.setAutoTransform(true);  // a JPEG's EXIF orientation, as the engine applies it
  const QSize size = reader.size();
  const int side = InferenceTab::kThumbnail;
  if (size.isValid() && (size.width() > side || size.height() > side))
    reader.setScaledSize(size.scaled(side, side, Qt::KeepAspectRatio));
  const QImage image = reader.read();
  if (image.isNull()) return {};
  if (image.width() >= side || image.height() >= side) return QPixmap::fromImage(image);
  return QPixmap::fromImage(image.scaled(side, side, Qt::KeepAspectRatio, Qt::FastTransformation));
}

// Draws the most likely classes of an image as bars: the class name, a bar as long as its
// likelihood, the likelihood in percent; the first (the prediction) in bold. A row without a
// prediction shows its error in red, or "Running…".
class ClassBarsDelegate : public QStyledItemDelegate {
 public:
  using QStyledItemDelegate::QStyledItemDelegate;

  void paint(QPainter* painter, const QStyleOptionViewItem& option, const QModelIndex& index) const override {
    QStyleOptionViewItem plain = option;
    initStyleOption(&plain, index);
    plain.text.clear();
    option.widget->style()->drawControl(QStyle::CE_ItemViewItem, &plain, painter, option.widget);
    const QRect cell = option.rect.adjusted(6, 4, -6, -4);
    painter->save();
    const QString error = index.data(ErrorRole).toString();
    if (!error.isEmpty() || index.data(PendingRole).toBool()) {
      painter->setPen(error.isEmpty() ? option.palette.color(QPalette::PlaceholderText) : QColor(0xc0, 0x39, 0x2b));
      painter->drawText(cell, Qt::AlignVCenter | Qt::AlignLeft | Qt::TextWordWrap, error.isEmpty() ? tr("Running…") : error);
      painter->restore();
      return;
    }
    const QVariantList bars = index.data(BarsRole).toList();
    if (bars.isEmpty()) {  // not a classifier: the outputs in words
      painter->drawText(cell, Qt::AlignVCenter | Qt::AlignLeft | Qt::TextWordWrap, index.data(Qt::DisplayRole).toString());
      painter->restore();
      return;
    }
    const QFontMetrics fm(option.font);
    const int nameWidth = std::min(cell.width() / 3, 200);
    const int percentWidth = fm.horizontalAdvance(QStringLiteral("100.0%")) + 6;
    const int barWidth = std::clamp(cell.width() - nameWidth - percentWidth - 8, 10, 420);
    for (int i = 0; i < bars.size(); ++i) {
      const QVariantMap bar = bars[i].toMap();
      const double p = std::clamp(bar.value(QStringLiteral("p")).toDouble(), 0.0, 1.0);
      const int y = cell.top() + i * kBarRowHeight;
      QFont font = option.font;
      font.setBold(i == 0);
      painter->setFont(font);
      painter->setPen(option.palette.color(QPalette::Text));
      const QRect nameRect(cell.left(), y, nameWidth, kBarRowHeight);
      painter->drawText(nameRect, Qt::AlignVCenter | Qt::AlignLeft,
                        QFontMetrics(font).elidedText(bar.value(QStringLiteral("name")).toString(), Qt::ElideRight, nameWidth));
      const QRect track(nameRect.right() + 8, y + 4, barWidth, kBarRowHeight - 8);
      painter->fillRect(track, option.palette.color(QPalette::AlternateBase).darker(104));
      painter->fillRect(QRect(track.topLeft(), QSize(std::max(1, static_cast<int>(track.width() * p)), track.height())),
                        i == 0 ? QColor(0x2e, 0x86, 0xc1) : QColor(0x85, 0xc1, 0xe9));
      painter->drawText(QRect(track.right() + 6, y, percentWidth, kBarRowHeight), Qt::AlignVCenter | Qt::AlignRight, likelihoodPercent(p));
    }
    painter->restore();
  }

  QSize sizeHint(const QStyleOptionViewItem& option, const QModelIndex& index) const override {
    return {320, InferenceTab::kTopClasses * kBarRowHeight + 8};
  }

 private:
  static QString tr(const char* text) { return QCoreApplication::translate("InferenceTab", text); }
};

// The image files among `paths`: files as they are, a folder's PNG and JPEG files by name.
QStringList expandFolders(const QStringList& paths) {
  QStringList files;
  for (const QString& path : paths) {
    const QFileInfo info(path);
    if (info.isDir()) {
      for (const QFileInfo& f : QDir(path).entryInfoList(kImageFilters, QDir::Files, QDir::Name | QDir::IgnoreCase))
        files << f.absoluteFilePath();
    } else if (!path.isEmpty()) {
      files << info.absoluteFilePath();
    }
  }
  return files;
}

}  // namespace

InferenceTab::InferenceTab(QWidget* parent) : QWidget(parent) {
  setAcceptDrops(true);
  m_choose = new QPushButton(tr("Choose images…"), this);
  m_choose->setObjectName(QStringLiteral("inferenceChoose"));
  m_choose->setToolTip(tr("PNG or JPEG images to classify with the trained network of the chosen run"));
  m_clear = new QPushButton(tr("Clear"), this);
  m_status = new QLabel(this);
  m_status->setObjectName(QStringLiteral("inferenceStatus"));
  m_status->setWordWrap(true);
  auto* bar = new QHBoxLayout;
  bar->addWidget(m_choose);
  bar->addWidget(m_clear);
  bar->addWidget(m_status, 1);

  auto* hint = new QLabel(tr("<h3>Drop PNG or JPEG images here</h3><p>or press <b>Choose images…</b>. The trained network of "
                             "the run chosen above classifies each image and shows its most likely classes.</p>"
                             "<p>Images are scaled as in training (the project's dataset scale) and not resized: they "
                             "must have the shape of the network's Input.</p>"),
                          this);
  hint->setObjectName(QStringLiteral("inferenceDropHint"));
  hint->setAlignment(Qt::AlignCenter);
  hint->setWordWrap(true);
  hint->setStyleSheet(QStringLiteral("QLabel#inferenceDropHint { border: 2px dashed palette(mid); border-radius: 8px; padding: 24px; }"));

  m_table = new QTableWidget(0, 3, this);
  m_table->setObjectName(QStringLiteral("inferenceTable"));
  m_table->setHorizontalHeaderLabels({tr("Image"), tr("File"), tr("Most likely classes")});
  m_table->verticalHeader()->hide();
  m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
  m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
  m_table->setIconSize(QSize(kThumbnail, kThumbnail));
  m_table->verticalHeader()->setDefaultSectionSize(std::max(kThumbnail, kTopClasses * kBarRowHeight) + 10);
  m_table->horizontalHeader()->setSectionResizeMode(ImageColumn, QHeaderView::Fixed);
  m_table->horizontalHeader()->setSectionResizeMode(FileColumn, QHeaderView::Interactive);
  m_table->horizontalHeader()->setSectionResizeMode(ClassesColumn, QHeaderView::Stretch);
  m_table->setColumnWidth(ImageColumn, kThumbnail + 16);
  m_table->setColumnWidth(FileColumn, 260);
  m_table->setItemDelegateForColumn(ClassesColumn, new ClassBarsDelegate(m_table));

  m_stack = new QStackedWidget(this);
  m_stack->addWidget(hint);
  m_stack->addWidget(m_table);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 4, 0, 0);
  layout->addLayout(bar);
  layout->addWidget(m_stack, 1);

  connect(m_choose, &QPushButton::clicked, this, &InferenceTab::chooseImages);
  connect(m_clear, &QPushButton::clicked, this, &InferenceTab::clear);
  setStatus(tr("Choose a trained run above."));
  updateEnabled();
}

InferenceTab::~InferenceTab() { cancelCliCommand(m_query); }

QString InferenceTab::statusText() const { return m_status->text(); }

void InferenceTab::setStatus(const QString& text, bool error) {
  m_status->setText(text);
  m_status->setStyleSheet(error ? QStringLiteral("color:#c0392b") : QString());
}

void InferenceTab::updateEnabled() {
  m_choose->setEnabled(!m_run.isEmpty());
  m_clear->setEnabled(!m_rows.isEmpty());
  m_stack->setCurrentIndex(m_rows.isEmpty() ? 0 : 1);
}

QString InferenceTab::className(int c) const {
  return c >= 0 && c < m_classNames.size() && !m_classNames[c].isEmpty() ? m_classNames[c] : QString::number(c);
}

void InferenceTab::setRun(const QString& runFolder, const QString& parameters) {
  if (runFolder == m_run && parameters == m_parameters) return;
  m_run = runFolder;
  m_parameters = parameters;
  cancelCliCommand(m_query);
  m_query = nullptr;
  m_batch.clear();
  if (m_run.isEmpty()) {
    setStatus(tr("Choose a trained run above."));
  } else {
    setStatus(tr("Drop PNG or JPEG images here or choose them: the %1 parameters of %2 classify them.")
                  .arg(m_parameters, QDir(m_run).dirName()));
    // The images shown belong to the previous choice: the new network classifies them again.
    for (int i = 0; i < m_rows.size(); ++i) {
      m_rows[i] = InferenceRow{m_rows[i].input};
      m_pending[i] = true;
      showRow(i);
    }
    startNext();
  }
  updateEnabled();
}

void InferenceTab::chooseImages() {
  const QStringList files = QFileDialog::getOpenFileNames(this, tr("Images to classify"), QString(),
                                                          tr("Images (%1);;All files (*)").arg(kImageFilters.join(QLatin1Char(' '))));
  if (!files.isEmpty()) addImages(files);
}

bool InferenceTab::addImages(const QStringList& paths) {
  if (m_run.isEmpty()) {
    setStatus(tr("Choose a trained run first: its network classifies the images."), true);
    return false;
  }
  const QStringList files = expandFolders(paths);
  if (files.isEmpty()) {
    setStatus(tr("No PNG or JPEG images in what was given."), true);
    return false;
  }
  for (const QString& file : files) {
    m_rows << InferenceRow{file};
    m_pending << true;
    m_table->insertRow(m_table->rowCount());
    showRow(static_cast<int>(m_rows.size()) - 1);
  }
  updateEnabled();
  startNext();
  return true;
}

void InferenceTab::clear() {
  cancelCliCommand(m_query);
  m_query = nullptr;
  m_batch.clear();
  m_rows.clear();
  m_pending.clear();
  m_table->setRowCount(0);
  if (!m_run.isEmpty()) setStatus(tr("Drop PNG or JPEG images here or choose them."));
  updateEnabled();
}

void InferenceTab::startNext() {
  if (m_query || m_run.isEmpty()) return;
  m_batch.clear();
  QStringList inputs;
  for (int i = 0; i < m_rows.size(); ++i)
    if (m_pending[i]) {
      m_batch << i;
      inputs << m_rows[i].input;
    }
  if (m_batch.isEmpty()) return;
  QStringList args{QStringLiteral("infer"), m_run, QStringLiteral("--parameters"), m_parameters, QStringLiteral("--json"),
                   QStringLiteral("--input")};
  args << inputs;
  setStatus(tr("Classifying %n image(s) with %1…", nullptr, static_cast<int>(inputs.size())).arg(QDir(m_run).dirName()));
  m_query = runCliCommand(this, args, [this](const CliResult& r) {
    m_query = nullptr;
    // infer --json prints its JSON also when it fails (exit status 1: no image could be used, or
    // {"error"} when the run cannot be loaded); without any output, its standard error says why.
    const QByteArray out = r.standardOutput.trimmed();
    finished(out, !r.started || out.isEmpty() ? r.errorText() : QString());
  }, kInferTimeoutMs);
}

void InferenceTab::finished(const QByteArray& output, const QString& failure) {
  QString why = failure;
  std::optional<InferenceResult> result;
  if (why.isEmpty()) result = parseInference(output, &why);
  if (result && result->rows.size() != m_batch.size()) {
    why = tr("the engine answered for %1 of %2 images").arg(result->rows.size()).arg(m_batch.size());
    result.reset();
  }
  if (result) {
    m_classNames = result->classNames;
    m_binary = result->binary;
  }
  for (int b = 0; b < m_batch.size(); ++b) {
    const int i = m_batch[b];
    if (result) {
      m_rows[i] = result->rows[b];
    } else {
      m_rows[i].error = why.trimmed();
    }
    m_pending[i] = false;
    showRow(i);
  }
  const int batch = static_cast<int>(m_batch.size());
  m_batch.clear();
  if (result) {
    const int failed = batch - static_cast<int>(result->predicted);
    const QString parameters = tr("the %1 parameters of %2")
                                   .arg(result->parametersWhich.isEmpty() ? m_parameters : result->parametersWhich,
                                        QDir(m_run).dirName());
    QString text;
    if (result->predicted == 0) {
      // Nothing ran, so no device did: the rows say why each image could not be used.
      text = tr("No image could be classified with %1: each row says why.").arg(parameters);
    } else {
      text = tr("%n image(s) classified", nullptr, static_cast<int>(result->predicted));
      if (failed > 0) text += tr(", %n could not be (see the row)", nullptr, failed);
      text += tr(" in %1 s on %2 with %3.")
                  .arg(QLocale().toString(result->seconds, 'f', 2), result->devices.join(QStringLiteral(", ")), parameters);
    }
    setStatus(text, result->predicted == 0);
  } else {
    setStatus(tr("Cannot classify: %1").arg(why.trimmed()), true);
  }
  updateEnabled();
  emit inferred(result.has_value() && result->predicted > 0);
  startNext();
}

QString InferenceTab::classesText(int row) const {
  if (row < 0 || row >= m_rows.size()) return {};
  const InferenceRow& r = m_rows[row];
  if (!r.ok()) return r.error;
  if (m_pending[row]) return tr("Running…");
  QStringList parts;
  if (!r.likelihoods.isEmpty()) {
    for (int c : r.topClasses(kTopClasses)) parts << className(c) + QLatin1Char(' ') + likelihoodPercent(r.likelihoods[c]);
  } else {
    for (double v : r.outputs) parts << QLocale().toString(v, 'g', 6);
    return tr("outputs: %1").arg(parts.join(QStringLiteral(", ")));
  }
  return parts.join(QStringLiteral(" · "));
}

void InferenceTab::showRow(int row) {
  const InferenceRow& r = m_rows[row];
  auto* image = new QTableWidgetItem;
  const QPixmap thumbnail = thumbnailOf(r.input);
  if (!thumbnail.isNull()) image->setData(Qt::DecorationRole, thumbnail);
  else image->setIcon(style()->standardIcon(QStyle::SP_MessageBoxWarning));
  m_table->setItem(row, ImageColumn, image);

  QString fileText = QFileInfo(r.input).fileName();
  if (r.shape.size() == 3) fileText += tr("\n%1 × %2, %3").arg(r.shape[2]).arg(r.shape[1]).arg(r.shape[0] == 1 ? tr("gray") : tr("colour"));
  // An image of another size was fitted as the training images were: said on its row.
  if (!r.prepared.isEmpty()) fileText += tr("\nresized: %1").arg(r.prepared);
  auto* file = new QTableWidgetItem(fileText);
  file->setToolTip(QDir::toNativeSeparators(r.input) + (r.prepared.isEmpty() ? QString() : QStringLiteral("\n") + r.prepared));
  m_table->setItem(row, FileColumn, file);

  auto* classes = new QTableWidgetItem;
  classes->setData(PendingRole, m_pending.value(row));
  if (!r.ok()) {
    classes->setData(ErrorRole, r.error);
  } else if (!m_pending.value(row) && r.likelihoods.isEmpty()) {
    classes->setText(classesText(row));
  } else {
    QVariantList bars;
    for (int c : r.topClasses(kTopClasses))
      bars << QVariantMap{{QStringLiteral("name"), className(c)}, {QStringLiteral("p"), r.likelihoods[c]}};
    classes->setData(BarsRole, bars);
  }
  classes->setToolTip(classesText(row));
  m_table->setItem(row, ClassesColumn, classes);
}

void InferenceTab::dragEnterEvent(QDragEnterEvent* event) {
  if (event->mimeData()->hasUrls()) event->acceptProposedAction();
}

void InferenceTab::dragMoveEvent(QDragMoveEvent* event) {
  if (event->mimeData()->hasUrls()) event->acceptProposedAction();
}

void InferenceTab::dropEvent(QDropEvent* event) {
  QStringList files;
  for (const QUrl& url : event->mimeData()->urls())
    if (url.isLocalFile()) files << url.toLocalFile();
  if (files.isEmpty()) return;
  event->acceptProposedAction();
  addImages(files);
}

}  // namespace netsmith::gui
