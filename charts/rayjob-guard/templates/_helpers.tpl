{{- define "rayjob-guard.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "rayjob-guard.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- else if contains (include "rayjob-guard.name" .) .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name (include "rayjob-guard.name" .) | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "rayjob-guard.labels" -}}
app.kubernetes.io/name: {{ include "rayjob-guard.name" . }}
app.kubernetes.io/part-of: rayjob-guard
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
{{- end -}}

{{- define "rayjob-guard.selectorLabels" -}}
app.kubernetes.io/name: {{ include "rayjob-guard.name" . }}
app.kubernetes.io/component: webhook
{{- end -}}

{{- define "rayjob-guard.image" -}}
{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}
{{- end -}}

{{/* The policy document: .Values.policy with .Values.ruleActions merged over its rules. */}}
{{- define "rayjob-guard.policy" -}}
{{- $p := deepCopy .Values.policy -}}
{{- if .Values.ruleActions -}}
{{- $_ := set $p "rules" (merge (deepCopy .Values.ruleActions) (get $p "rules" | default dict)) -}}
{{- end -}}
{{- toYaml $p -}}
{{- end -}}
