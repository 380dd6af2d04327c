#include "gui/training/chart_export.h"

#include <qcustomplot.h>

#include <QDir>
#include <QFileDialog>
#include <QMenu>
#include <QMessageBox>
#include <QSaveFile>
#include <cmath>

namespace netsmith::gui {

namespace {

QString cell(const QString& text) {
  if (!text.contains(QLatin1Char(',')) && !text.contains(QLatin1Char('"')) && !text.contains(QLatin1Char('\n'))) return text;
  QString quoted = text;
  quoted.replace(QLatin1Char('"'), QStringLiteral("\"\""));
  return QLatin1Char('"') + quoted + QLatin1Char('"');
}

QString number(double v) { return QString::number(v, 'g', 10); }

// The key as the axis shows it: a text ticker's label (a device) where there is one.
QString keyText(const QCPAxis* axis, double key) {
  if (const auto text = qSharedPointerDynamicCast<QCPAxisTickerText>(axis->ticker())) {
    const auto it = text->ticks().constFind(key);
    if (it != text->ticks().constEnd()) return it.value();
  }
  return number(key);
}

}  // namespace

QString chartCsv(QCustomPlot* plot) {
  QString csv = QStringLiteral("series,x,y\n");
  for (int i = 0; i < plot->plottableCount(); ++i) {
    QCPAbstractPlottable* p = plot->plottable(i);
    const QString name = cell(p->name());
    if (auto* graph = qobject_cast<QCPGraph*>(p)) {
      for (const QCPGraphData& d : *graph->data())
        if (!std::isnan(d.value)) csv += name + QLatin1Char(',') + number(d.key) + QLatin1Char(',') + number(d.value) + QLatin1Char('\n');
    } else if (auto* bars = qobject_cast<QCPBars*>(p)) {
      for (const QCPBarsData& d : *bars->data())
        csv += name + QLatin1Char(',') + cell(keyText(bars->keyAxis(), d.key)) + QLatin1Char(',') + number(d.value) + QLatin1Char('\n');
    }
  }
  return csv;
}

bool saveChartPng(QCustomPlot* plot, const QString& file, QString* error) {
  if (plot->savePng(file, plot->width(), plot->height())) return true;
  if (error) *error = QObject::tr("cannot write %1").arg(QDir::toNativeSeparators(file));
  return false;
}

bool saveChartCsv(QCustomPlot* plot, const QString& file, QString* error) {
  QSaveFile out(file);
  if (out.open(QIODevice::WriteOnly | QIODevice::Text) && out.write(chartCsv(plot).toUtf8()) >= 0 && out.commit()) return true;
  if (error) *error = QObject::tr("cannot write %1: %2").arg(QDir::toNativeSeparators(file), out.errorString());
  return false;
}

QMenu* chartMenu(QCustomPlot* plot, const QString& name, const std::function<void()>& resetZoom) {
  auto* menu = new QMenu(plot);
  menu->setAttribute(Qt::WA_DeleteOnClose);
  auto save = [plot, name](const QString& suffix, const QString& filter, auto write) {
    const QString file = QFileDialog::getSaveFileName(plot, QObject::tr("Export the chart"),
                                                      QDir::home().filePath(name + QLatin1Char('.') + suffix), filter);
    QString why;
    if (!file.isEmpty() && !write(file, &why)) QMessageBox::warning(plot, QObject::tr("Cannot export the chart"), why);
  };
  menu->addAction(QObject::tr("Export chart as &PNG…"), plot, [plot, save] {
        save(QStringLiteral("png"), QObject::tr("PNG images (*.png)"), [plot](const QString& f, QString* why) { return saveChartPng(plot, f, why); });
      })->setObjectName(QStringLiteral("exportChartPng"));
  menu->addAction(QObject::tr("Export data as &CSV…"), plot, [plot, save] {
        save(QStringLiteral("csv"), QObject::tr("CSV files (*.csv)"), [plot](const QString& f, QString* why) { return saveChartCsv(plot, f, why); });
      })->setObjectName(QStringLiteral("exportChartCsv"));
  if (resetZoom) {
    menu->addSeparator();
    menu->addAction(QObject::tr("&Reset zoom"), plot, resetZoom)->setObjectName(QStringLiteral("resetZoom"));
  }
  return menu;
}

void installChartMenu(QCustomPlot* plot, const QString& name, const std::function<void()>& resetZoom) {
  plot->setContextMenuPolicy(Qt::CustomContextMenu);
  QObject::connect(plot, &QWidget::customContextMenuRequested, plot, [plot, name, resetZoom](const QPoint& at) {
    chartMenu(plot, name, resetZoom)->popup(plot->mapToGlobal(at));
  });
}

}  // namespace netsmith::gui
