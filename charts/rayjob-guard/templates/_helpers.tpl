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

{{/* The webhook pods' selector: name, instance and component, so two releases never select each
other's pods. Immutable in a Deployment: changing it needs the Deployment deleted. */}}
{{- define "rayjob-guard.selectorLabels" -}}
app.kubernetes.io/name: {{ include "rayjob-guard.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/component: webhook
{{- end -}}

{{/* The webhook pods' labels: the chart's labels and the selector, over .Values.podLabels, merged
as maps so that no key appears twice (strict YAML parsers refuse duplicate keys). */}}
{{- define "rayjob-guard.podLabels" -}}
{{- $chart := merge (include "rayjob-guard.selectorLabels" . | fromYaml) (include "rayjob-guard.labels" . | fromYaml) -}}
{{- toYaml (merge $chart (deepCopy .Values.podLabels)) -}}
{{- end -}}

{{/* The PriorityClass the webhook pods use: <fullname>-critical-<value> when the chart creates it
(a PriorityClass's value is immutable, so a new value is a new object), else priorityClass.name. */}}
{{- define "rayjob-guard.priorityClassName" -}}
{{- if .Values.priorityClass.create -}}
{{- printf "%s-critical-%d" (include "rayjob-guard.fullname" .) (int64 .Values.priorityClass.value) -}}
{{- else -}}
{{- .Values.priorityClass.name -}}
{{- end -}}
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

{{/* "true" when the policy takes quota from the cluster's ResourceQuotas (quota.source: cluster). */}}
{{- define "rayjob-guard.quotaFromCluster" -}}
{{- eq (dig "quota" "source" "policy" .Values.policy) "cluster" -}}
{{- end -}}

{{/*
A CronJob that runs one rayjob-guard command with the webhook's policy ConfigMap mounted (the
reaper, the audit), as ServiceAccount <fullname>-<component>. Takes a dict: root (the chart
context), component, schedule, startingDeadlineSeconds, activeDeadlineSeconds,
ttlSecondsAfterFinished, args (strings), resources.
*/}}
{{- define "rayjob-guard.cronJob" -}}
{{- $root := .root -}}
{{- $fullname := include "rayjob-guard.fullname" $root -}}
apiVersion: batch/v1
kind: CronJob
metadata:
  name: {{ $fullname }}-{{ .component }}
  namespace: {{ $root.Release.Namespace }}
  labels:
    {{- include "rayjob-guard.labels" $root | nindent 4 }}
    app.kubernetes.io/component: {{ .component }}
spec:
  schedule: {{ .schedule | quote }}
  concurrencyPolicy: Forbid
  startingDeadlineSeconds: {{ .startingDeadlineSeconds }}
  successfulJobsHistoryLimit: 1
  failedJobsHistoryLimit: 3
  jobTemplate:
    spec:
      backoffLimit: 0
      activeDeadlineSeconds: {{ .activeDeadlineSeconds }}
      ttlSecondsAfterFinished: {{ .ttlSecondsAfterFinished }}
      template:
        metadata:
          labels:
            app.kubernetes.io/name: {{ include "rayjob-guard.name" $root }}
            app.kubernetes.io/instance: {{ $root.Release.Name }}
            app.kubernetes.io/component: {{ .component }}
        spec:
          serviceAccountName: {{ $fullname }}-{{ .component }}
          automountServiceAccountToken: true
          restartPolicy: Never
          enableServiceLinks: false
          {{- with $root.Values.imagePullSecrets }}
          imagePullSecrets:
            {{- toYaml . | nindent 12 }}
          {{- end }}
          securityContext:
            {{- toYaml $root.Values.podSecurityContext | nindent 12 }}
          containers:
            - name: {{ .component }}
              image: {{ include "rayjob-guard.image" $root }}
              imagePullPolicy: {{ $root.Values.image.pullPolicy }}
              args:
                {{- toYaml .args | nindent 16 }}
              resources:
                {{- toYaml .resources | nindent 16 }}
              securityContext:
                {{- toYaml $root.Values.securityContext | nindent 16 }}
              volumeMounts:
                - name: policy
                  mountPath: /etc/rayjob-guard/policy
                  readOnly: true
          volumes:
            - name: policy
              configMap:
                name: {{ $fullname }}-policy
{{- end -}}
